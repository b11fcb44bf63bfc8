import { createHash } from 'node:crypto';
import {
  cpSync,
  type Dirent,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { type DependencyEntry, manifestOf } from '../config/setup-schema.js';
import { errorMessage, SetupError } from '../errors.js';
import { sha256File } from '../provenance/digest.js';
import { relocateVenv } from '../workspace/venv-relocate.js';
import { PYPROJECT_INSTALL } from './pyproject-script.js';
import { COREPACK_HOME, YARN_BERRY_HOME } from './setup-home.js';

/** What one install leaves behind that a later run can reuse. */
type Installed =
  | { kind: 'node'; root: string; corepack: string | null; berry: string }
  | { kind: 'venv'; venv: string; repoDir: string };

function installed(dep: DependencyEntry, repoDir: string, hostHome: string, client: string[]): Installed {
  if (dep.manager === 'pip') return { kind: 'venv', venv: path.join(repoDir, dep.target), repoDir };
  return {
    kind: 'node',
    root: path.join(repoDir, path.dirname(dep.lockfile)),
    corepack: client[0] === 'corepack' ? path.join(hostHome, COREPACK_HOME) : null,
    berry: path.join(hostHome, YARN_BERRY_HOME),
  };
}

/**
 * What a Plug'n'Play install (yarn 2+) writes beside the lockfile instead of node_modules: the
 * resolution map node loads (`.pnp.cjs`, its ESM loader, its data), the packages that must sit
 * unzipped on disk, the install state, and the project's own cache of zip archives (in the workspace
 * with `enableGlobalCache: false`; committed in a zero-install repository, written by the install
 * otherwise).
 */
const PNP_OUTPUTS = [
  '.pnp.cjs',
  '.pnp.loader.mjs',
  '.pnp.data.json',
  '.yarn/unplugged',
  '.yarn/install-state.gz',
  '.yarn/cache',
];

const fileSha = (file: string) => {
  try {
    return sha256File(file).sha256;
  } catch {
    return null;
  }
};

/** The files a requirements file pulls in (`-r`, `-c`), each hashed with it: a change to one is a change. */
function includedFiles(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [file];
  }
  const more = [...text.matchAll(/^\s*(?:-[rc]|--requirement|--constraint)[=\s]\s*(\S+)/gm)].map((m) =>
    path.resolve(path.dirname(file), m[1] as string),
  );
  return [file, ...more.flatMap((f) => includedFiles(f, seen))];
}

/** A workspace file an install reads, and its sha256 before the install (null when it is missing). */
export type InstallInput = { path: string; sha256: string | null };

/**
 * The workspace files whose bytes decide what an install writes: a JavaScript client's lockfile and
 * package.json; a requirements file and every file it includes; a pyproject and its lockfile. One
 * definition for setup.json (what was installed from) and the cache key (a changed file installs again).
 */
export function installInputs(dep: DependencyEntry, repoDir: string): InstallInput[] {
  let files: string[];
  if (dep.manager !== 'pip') {
    const lock = path.join(repoDir, dep.lockfile);
    files = [lock, path.join(path.dirname(lock), 'package.json')];
  } else {
    const manifest = path.join(repoDir, manifestOf(dep).rel);
    files = dep.pyproject === undefined ? includedFiles(manifest) : [manifest];
    if (dep.lockfile) files.push(path.join(repoDir, dep.lockfile));
  }
  return files.map((f) => ({ path: path.relative(repoDir, f), sha256: fileSha(f) }));
}

/** What decides a pip install beyond its files and source: the groups, the interpreter, the installer. */
function pipFacts(dep: Extract<DependencyEntry, { manager: 'pip' }>, runtime: string | null) {
  return {
    groups: dep.groups ?? [],
    editable: dep.editable !== false,
    target: dep.target,
    python: runtime,
    // What reads the pyproject: a change to it may install something else from the same files.
    ...(dep.pyproject !== undefined
      ? { installer: createHash('sha256').update(PYPROJECT_INSTALL).digest('hex') }
      : {}),
  };
}

/**
 * The key of an install: everything that decides what it writes (installInputs' files, the client,
 * where packages come from, whether scripts ran, the Node.js version or the interpreter a venv is
 * made from). Null when a venv's interpreter cannot be named (`runtime` null).
 */
export function dependencyCacheKey(
  dep: DependencyEntry,
  repoDir: string,
  client: string[],
  runtime: string | null = process.version,
): string | null {
  if (dep.manager === 'pip' && runtime === null) return null;
  const facts = {
    v: 4,
    manager: dep.manager,
    files: installInputs(dep, repoDir),
    ...(dep.manager === 'pip' ? pipFacts(dep, runtime) : { node: runtime }),
    client,
    from: dep.cache ?? dep.mirror,
    scripts: dep.scripts,
  };
  return createHash('sha256').update(JSON.stringify(facts)).digest('hex');
}

/**
 * Every node_modules folder an install made under the lockfile's folder, relative to it: the root's
 * and each workspace package's (pnpm, yarn, npm and bun workspaces link a package's dependencies
 * into its own folder). Not inside another node_modules, nor in .git.
 */
function nodeModulesDirs(root: string, rel = '', depth = 0): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(path.join(root, rel), { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || e.name === '.git') continue;
    const child = path.join(rel, e.name);
    if (e.name === 'node_modules') found.push(child);
    else if (depth < 8) found.push(...nodeModulesDirs(root, child, depth + 1));
  }
  return found;
}

const copy = (from: string, to: string) =>
  // Timestamps kept: Python trusts a cached .pyc only while its source's mtime matches.
  cpSync(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });

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
  try {
    return restore(cacheDir, dep, places, client);
  } catch (err) {
    throw new SetupError(
      `the cached install in ${cacheDir} could not be copied into the workspace (${errorMessage(err)}). ` +
        `Fix: delete ${cacheDir}; the next run installs again.`,
      { cause: err },
    );
  }
}

/** True when `cacheDir` holds a venv a restore can copy. */
export function hasCachedVenv(cacheDir: string | null | undefined): boolean {
  return !!cacheDir && existsSync(path.join(cacheDir, 'venv')) && existsSync(path.join(cacheDir, 'origin'));
}

function restore(
  cacheDir: string,
  dep: DependencyEntry,
  places: { repoDir: string; hostHome: string },
  client: string[],
): boolean {
  const into = installed(dep, places.repoDir, places.hostHome, client);
  if (into.kind === 'venv') {
    if (!hasCachedVenv(cacheDir)) return false;
    // A later entry into the same venv was cached with the earlier ones' packages: it replaces it.
    rmSync(into.venv, { recursive: true, force: true });
    copy(path.join(cacheDir, 'venv'), into.venv);
    relocateVenv(into.venv, readFileSync(path.join(cacheDir, 'origin'), 'utf8'), into.repoDir);
    return true;
  }
  if (!existsSync(path.join(cacheDir, 'tree'))) return false;
  // The tree of node_modules folders (root's included) and Plug'n'Play files, merged into the
  // workspace where they were.
  copy(path.join(cacheDir, 'tree'), into.root);
  if (into.corepack && existsSync(path.join(cacheDir, 'corepack')))
    copy(path.join(cacheDir, 'corepack'), into.corepack);
  if (existsSync(path.join(cacheDir, 'berry'))) copy(path.join(cacheDir, 'berry'), into.berry);
  return true;
}

/**
 * Keeps what an install wrote for the next run with the same key: written to a folder of its own
 * and renamed into place, so a reader never sees half a copy. The cache lives in agentguard's
 * output folder, which the sandbox hides from the agent. A venv is kept with the workspace folder it
 * was made in, which a restore replaces in the files that name it.
 */
export function saveDependencies(
  cacheDir: string,
  dep: DependencyEntry,
  places: { repoDir: string; hostHome: string },
  client: string[],
): void {
  const from = installed(dep, places.repoDir, places.hostHome, client);
  const made =
    from.kind === 'venv'
      ? [from.venv]
      : [...nodeModulesDirs(from.root), ...PNP_OUTPUTS].filter((rel) =>
          existsSync(path.join(from.root, rel)),
        );
  // An install that made nothing (a lockfile with no dependencies) is kept too, as an empty tree:
  // the next run need not install again to learn that.
  if ((from.kind === 'venv' && made.length === 0) || existsSync(cacheDir)) return;
  const staging = `${cacheDir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    if (from.kind === 'venv') {
      copy(from.venv, path.join(staging, 'venv'));
      writeFileSync(path.join(staging, 'origin'), from.repoDir);
    } else {
      mkdirSync(path.join(staging, 'tree'));
      for (const rel of made) copy(path.join(from.root, rel), path.join(staging, 'tree', rel));
      if (from.corepack && existsSync(from.corepack)) copy(from.corepack, path.join(staging, 'corepack'));
      // yarn 2+'s global cache of zip archives, which a Plug'n'Play project loads its packages from.
      if (existsSync(from.berry)) copy(from.berry, path.join(staging, 'berry'));
    }
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
