import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { listBuiltinProfiles, loadProfile } from '../profiles/load-profile.js';
import { agentCacheDir, cachedBinPath, installedVersion } from './agent-cache.js';

export type InstalledAgent = {
  name: string;
  dir: string;
  package: string | null;
  /** What is installed; null when nothing usable is. */
  version: string | null;
  /** What the built-in profile pins; null without a built-in profile of that name. */
  pinned: string | null;
  bin: string | null;
  /** `ok`: the pinned version is there; `other-version`: another one is; `incomplete`: no usable install; `no-profile`: no built-in profile has this name. */
  status: 'ok' | 'other-version' | 'incomplete' | 'no-profile';
};

/** What agentguard's cache holds, one entry per agent folder, sorted by name (for `doctor`). */
export function installedAgents(cacheDir: string = agentCacheDir()): InstalledAgent[] {
  let names: string[];
  try {
    names = readdirSync(cacheDir).sort();
  } catch {
    return [];
  }
  const builtins = new Set(listBuiltinProfiles());
  const out: InstalledAgent[] = [];
  for (const name of names) {
    // Dot-folders hold agentguard's own records (`.verified`), never an agent.
    if (name.startsWith('.')) continue;
    const dir = path.join(cacheDir, name);
    if (!statSync(dir).isDirectory()) continue;
    if (!builtins.has(name)) {
      out.push({ name, dir, package: null, version: null, pinned: null, bin: null, status: 'no-profile' });
      continue;
    }
    const profile = loadProfile(name);
    const pkg = profile.package;
    const version = pkg ? installedVersion(dir, pkg.name) : null;
    const bin = cachedBinPath(dir, profile.bin);
    const usable = version !== null && existsSync(bin);
    out.push({
      name,
      dir,
      package: pkg?.name ?? null,
      version: usable ? version : null,
      pinned: pkg?.version ?? null,
      bin: usable ? bin : null,
      status: !usable ? 'incomplete' : version === pkg?.version ? 'ok' : 'other-version',
    });
  }
  return out;
}
