import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package-root.js';
import { agentguardVersion } from '../version.js';

/**
 * Which agentguard sealed a run. From a git checkout the commit says exactly which code judged it
 * (and `dirty` whether tracked files differed from it); an installed package has no commit, so
 * the version is all there is, and the manifest says which of the two it recorded.
 */
export type AgentguardSource =
  | { source: 'checkout'; version: string; commit: string; dirty: boolean }
  | { source: 'package'; version: string };

const cache = new Map<string, AgentguardSource>();

/** The source of the agentguard at `root` (its package root by default), looked up once per process. */
export function agentguardSource(root: string = packageRoot()): AgentguardSource {
  const known = cache.get(root);
  if (known) return known;
  const found = lookUp(root);
  cache.set(root, found);
  return found;
}

function lookUp(root: string): AgentguardSource {
  const version = root === packageRoot() ? agentguardVersion() : packageVersion(root);
  // Only a checkout whose top level is the package itself counts: a package installed under
  // node_modules of some project is inside that project's repository, not a checkout of agentguard.
  const top = git(root, ['rev-parse', '--show-toplevel']);
  if (top === null || realpath(top) !== realpath(root)) return { source: 'package', version };
  const commit = git(root, ['rev-parse', 'HEAD']);
  if (commit === null || !/^[0-9a-f]{40,64}$/.test(commit)) return { source: 'package', version };
  // As `git describe --dirty` decides it: changes to tracked files; untracked files do not count.
  const status = git(root, ['status', '--porcelain', '--untracked-files=no']);
  return { source: 'checkout', version, commit, dirty: status === null || status !== '' };
}

function git(cwd: string, args: string[]): string | null {
  // GIT_DIR and friends from a hook or a caller's shell would point git at another repository.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));
  try {
    return execFileSync('git', ['-C', cwd, ...args], {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    }).trim();
  } catch {
    // No git on the machine, or not a repository: the package version is what can be said.
    return null;
  }
}

function realpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function packageVersion(root: string): string {
  try {
    return (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
