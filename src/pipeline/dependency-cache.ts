import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { DependencyEntry } from '../config/setup-schema.js';
import { sha256File } from '../provenance/digest.js';

/** Where corepack keeps the clients it fetched, inside a HOME (COREPACK_HOME unset). */
const COREPACK_HOME = '.cache/node/corepack';

/** What one JavaScript install leaves behind that a later run can reuse. */
type Installed = { nodeModules: string; corepack: string | null };

function installed(
  dep: DependencyEntry,
  repoDir: string,
  hostHome: string,
  client: string[],
): Installed | null {
  if (dep.manager === 'pip') return null; // a venv records its own path: it does not move
  const nodeModules = path.join(repoDir, path.dirname(dep.lockfile), 'node_modules');
  return { nodeModules, corepack: client[0] === 'corepack' ? path.join(hostHome, COREPACK_HOME) : null };
}

const fileSha = (file: string) => {
  try {
    return sha256File(file).sha256;
  } catch {
    return null;
  }
};

/**
 * The key of an install: everything that decides what it writes (the lockfile and package.json
 * bytes, the client, where packages come from, whether scripts ran, the Node.js version). Null for
 * installs that cannot be reused (pip's venv holds its own absolute path).
 */
export function dependencyCacheKey(dep: DependencyEntry, repoDir: string, client: string[]): string | null {
  if (dep.manager === 'pip') return null;
  const dir = path.join(repoDir, path.dirname(dep.lockfile));
  const facts = {
    v: 1,
    manager: dep.manager,
    lockfile: dep.lockfile,
    lock: fileSha(path.join(repoDir, dep.lockfile)),
    package: fileSha(path.join(dir, 'package.json')),
    client,
    from: dep.cache ?? dep.mirror,
    scripts: dep.scripts,
    node: process.version,
  };
  return createHash('sha256').update(JSON.stringify(facts)).digest('hex');
}

/**
 * Copies a cached install into the workspace (and corepack's client into the run's HOME). Copies,
 * never links: the agent may change its node_modules, and that must not reach the next run.
 * False when there is nothing cached under the key.
 */
export function restoreDependencies(
  cacheDir: string,
  dep: DependencyEntry,
  places: { repoDir: string; hostHome: string },
  client: string[],
): boolean {
  const into = installed(dep, places.repoDir, places.hostHome, client);
  if (!into || !existsSync(path.join(cacheDir, 'node_modules'))) return false;
  cpSync(path.join(cacheDir, 'node_modules'), into.nodeModules, { recursive: true, verbatimSymlinks: true });
  if (into.corepack && existsSync(path.join(cacheDir, 'corepack')))
    cpSync(path.join(cacheDir, 'corepack'), into.corepack, { recursive: true, verbatimSymlinks: true });
  return true;
}

/**
 * Keeps what an install wrote for the next run with the same key: written to a folder of its own
 * and renamed into place, so a reader never sees half a copy. The cache lives in agentguard's
 * output folder, which the sandbox hides from the agent.
 */
export function saveDependencies(
  cacheDir: string,
  dep: DependencyEntry,
  places: { repoDir: string; hostHome: string },
  client: string[],
): void {
  const from = installed(dep, places.repoDir, places.hostHome, client);
  if (!from || !existsSync(from.nodeModules) || existsSync(cacheDir)) return;
  const staging = `${cacheDir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    cpSync(from.nodeModules, path.join(staging, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    if (from.corepack && existsSync(from.corepack))
      cpSync(from.corepack, path.join(staging, 'corepack'), { recursive: true, verbatimSymlinks: true });
    try {
      renameSync(staging, cacheDir);
    } catch (err) {
      // Another run with the same key saved first: its copy is as good as this one.
      if (!existsSync(cacheDir)) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
