import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DependencyEntry } from '../config/setup-schema.js';
import { resolveProgram } from './preflight.js';

type JsEntry = Extract<DependencyEntry, { manager: 'npm' | 'pnpm' | 'yarn' | 'bun' }>;
export type InstallStep = {
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
  /** How the evidence shows argv, when it carries a program too long to repeat. */
  display?: string[];
};

/** package.json's `packageManager` (`pnpm@9.15.9+sha512…`): the client and version a project pins. */
export function pinnedManager(pkgDir: string): { name: string; version: string } | null {
  try {
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
      packageManager?: unknown;
    };
    const m =
      typeof pkg.packageManager === 'string' ? /^(npm|pnpm|yarn)@([^+\s]+)/.exec(pkg.packageManager) : null;
    return m ? { name: m[1] as string, version: m[2] as string } : null;
  } catch {
    return null;
  }
}

/**
 * How to run a project's client: through corepack when package.json pins it (corepack runs that
 * version, the one the project is tested with), else the client on PATH, else corepack's default.
 * Null when neither is there.
 */
export function jsClient(
  manager: 'pnpm' | 'yarn' | 'bun',
  pkgDir: string,
  pathVar: string | undefined,
): string[] | null {
  // Corepack does not manage bun: the bun on PATH (the npm package `bun` ships it) or none.
  if (manager === 'bun') return resolveProgram('bun', pkgDir, pathVar) ? ['bun'] : null;
  const corepack = resolveProgram('corepack', pkgDir, pathVar) !== null;
  if (corepack && pinnedManager(pkgDir)?.name === manager) return ['corepack', manager];
  if (resolveProgram(manager, pkgDir, pathVar)) return [manager];
  return corepack ? ['corepack', manager] : null;
}

/** What to say when a client is missing. */
export const JS_CLIENT_INSTALL: Record<'pnpm' | 'yarn' | 'bun', string> = {
  bun: 'run `npm install -g bun` (the npm package ships the bun program), or install it from https://bun.sh',
  pnpm: 'run `corepack enable` (corepack ships with Node.js), or `npm install -g pnpm`',
  yarn: 'run `corepack enable` (corepack ships with Node.js), or `npm install -g yarn`',
};

/** Yarn 2+ (berry) writes `__metadata` into its lockfile; yarn 1's has none. */
function isBerryLock(file: string): boolean {
  try {
    return /^__metadata:/m.test(readFileSync(file, 'utf8').slice(0, 4096));
  } catch {
    return false;
  }
}

/**
 * The install of a pnpm, yarn or bun lockfile: frozen (the lockfile is not rewritten), from the mirror,
 * without the dependencies' install scripts unless allowed. Corepack fetches a pinned client from
 * the same mirror. The run's HOME holds a canary ~/.npmrc whose token must not be sent to the
 * mirror, so the clients read no user config.
 */
export function jsInstall(dep: JsEntry, repoDir: string, client: string[]): InstallStep {
  const cwd = path.join(repoDir, path.dirname(dep.lockfile));
  const mirror = dep.mirror ?? '';
  const env: Record<string, string> = {
    COREPACK_NPM_REGISTRY: mirror.replace(/\/+$/, ''),
    COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
    npm_config_userconfig: '/dev/null',
  };
  if (dep.manager === 'bun') {
    // bun reads BUN_CONFIG_REGISTRY and the *_PROXY variables; --frozen-lockfile refuses to change bun.lock(b).
    env.BUN_CONFIG_REGISTRY = mirror;
    const argv = [...client, 'install', '--frozen-lockfile', '--no-progress', '--registry', mirror];
    if (!dep.scripts) argv.push('--ignore-scripts');
    return { argv, cwd, env };
  }
  if (dep.manager === 'pnpm') {
    const argv = [...client, 'install', '--frozen-lockfile', '--reporter=append-only', '--registry', mirror];
    argv.push('--config.confirmModulesPurge=false');
    if (!dep.scripts) argv.push('--ignore-scripts');
    return { argv, cwd, env };
  }
  if (isBerryLock(path.join(repoDir, dep.lockfile))) {
    env.YARN_NPM_REGISTRY_SERVER = mirror.replace(/\/+$/, '');
    env.YARN_ENABLE_SCRIPTS = dep.scripts ? 'true' : 'false';
    env.YARN_ENABLE_TELEMETRY = 'false';
    env.YARN_ENABLE_PROGRESS_BARS = 'false';
    return { argv: [...client, 'install', '--immutable'], cwd, env };
  }
  const argv = [...client, 'install', '--frozen-lockfile', '--non-interactive', '--no-progress'];
  argv.push('--registry', mirror);
  if (!dep.scripts) argv.push('--ignore-scripts');
  return { argv, cwd, env };
}

/** The install-time scripts a client runs for the project itself, in its order (npm's lifecycle). */
const PROJECT_LIFECYCLE = ['preinstall', 'install', 'postinstall', 'prepare'];

/**
 * The project's own install-time scripts (package.json beside the lockfile: a `postinstall` that
 * generates code, husky's `prepare`), when the install ran with scripts off: that switch is for the
 * dependencies' code, and the project's own scripts are code the tests run anyway. Each is run by the
 * project's client after the install or its restore from the cache, every run (what they write,
 * beside node_modules, is not cached). None when `scripts` is on: the client ran them itself.
 */
export function projectScripts(dep: DependencyEntry, repoDir: string, client: string[]): InstallStep[] {
  if (dep.scripts || dep.manager === 'pip') return [];
  const cwd = path.join(repoDir, path.dirname(dep.lockfile));
  let scripts: Record<string, unknown> = {};
  try {
    const pkg = JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8')) as { scripts?: unknown };
    if (pkg.scripts && typeof pkg.scripts === 'object') scripts = pkg.scripts as Record<string, unknown>;
  } catch {
    return [];
  }
  const runner = dep.manager === 'npm' ? ['npm'] : client;
  const env: Record<string, string> = {
    COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
    npm_config_userconfig: '/dev/null',
  };
  return PROJECT_LIFECYCLE.filter(
    (s) => typeof scripts[s] === 'string' && (scripts[s] as string).trim() !== '',
  ).map((s) => ({ argv: [...runner, 'run', s], cwd, env }));
}
