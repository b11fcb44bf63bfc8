import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DependencyEntry } from '../config/setup-schema.js';
import type { InstalledDependency } from '../evidence/bundle-types.js';
import type { Timeline } from './timeline.js';

/**
 * Who installs a uv, poetry or pdm lockfile: pip, at its versions and hashes. uv is not on npm or in
 * Debian, and poetry's own installer needs its index settings in the user's pyproject; setup.json
 * says which ran so that nobody reads it as the tool's own install.
 */
export function lockInstaller(lockfile: string): string {
  const tool = path.basename(lockfile).replace(/\.lock$/, '');
  return `pip, at ${path.basename(lockfile)}'s versions and hashes (${tool} itself is not run)`;
}

/**
 * What a pip install from a lockfile installed that the lockfile does not list, as the pyproject
 * install wrote it into the venv (kept with it in the dependency cache): a stale lockfile is named
 * in setup.json, not left unchecked in silence. Undefined without a lockfile or the list.
 */
function unlockedOf(dep: DependencyEntry, repoDir: string): string[] | undefined {
  if (dep.manager !== 'pip' || !dep.lockfile) return undefined;
  try {
    const text = readFileSync(path.join(repoDir, dep.target, 'agentguard-unlocked.txt'), 'utf8');
    return text.split('\n').filter((l) => l.trim() !== '');
  } catch {
    return undefined;
  }
}

/** Records the unlocked packages of an install on its setup.json entry and the timeline. */
export function noteUnlocked(
  record: InstalledDependency,
  dep: DependencyEntry,
  repoDir: string,
  timeline: Timeline,
  name: string,
): void {
  const unlocked = unlockedOf(dep, repoDir);
  if (unlocked === undefined) return;
  record.unlocked = unlocked;
  if (unlocked.length > 0 && dep.manager === 'pip')
    timeline.add(
      'prepare',
      'dependencies-unlocked',
      `${name}: ${dep.lockfile} does not list ${unlocked.join(', ')}: installed unchecked`,
    );
}
