import { execFile, execFileSync } from 'node:child_process';
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

/**
 * Start looking up the source while the caller does other work (a run does this as it starts, and
 * seals with the answer at its end): the three git commands run at once, in the background.
 */
export function prefetchAgentguardSource(root: string = packageRoot()): Promise<void> {
  if (cache.has(root)) return Promise.resolve();
  const ask = (args: string[]) =>
    new Promise<string | null>((resolve) => {
      execFile('git', ['-C', root, ...args], gitOptions(), (err, out) => resolve(err ? null : out.trim()));
    });
  return Promise.all([ask(TOP), ask(HEAD), ask(STATUS)]).then(([top, commit, status]) => {
    if (!cache.has(root))
      cache.set(
        root,
        sourceOf(
          root,
          top,
          () => commit,
          () => status,
        ),
      );
  });
}

const TOP = ['rev-parse', '--show-toplevel'];
const HEAD = ['rev-parse', 'HEAD'];
// As `git describe --dirty` decides it: changes to tracked files; untracked files do not count.
const STATUS = ['status', '--porcelain', '--untracked-files=no'];

function lookUp(root: string): AgentguardSource {
  return sourceOf(
    root,
    git(root, TOP),
    () => git(root, HEAD),
    () => git(root, STATUS),
  );
}

/** The source from git's answers (null where git failed), asked for only as far as they are needed. */
function sourceOf(
  root: string,
  top: string | null,
  commitOf: () => string | null,
  statusOf: () => string | null,
): AgentguardSource {
  const version = root === packageRoot() ? agentguardVersion() : packageVersion(root);
  // Only a checkout whose top level is the package itself counts: a package installed under
  // node_modules of some project is inside that project's repository, not a checkout of agentguard.
  if (top === null || realpath(top) !== realpath(root)) return { source: 'package', version };
  const commit = commitOf();
  if (commit === null || !/^[0-9a-f]{40,64}$/.test(commit)) return { source: 'package', version };
  const status = statusOf();
  return { source: 'checkout', version, commit, dirty: status === null || status !== '' };
}

function gitOptions() {
  // GIT_DIR and friends from a hook or a caller's shell would point git at another repository.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));
  return { env, encoding: 'utf8' as const, timeout: 10_000 };
}

function git(cwd: string, args: string[]): string | null {
  try {
    return execFileSync('git', ['-C', cwd, ...args], {
      ...gitOptions(),
      stdio: ['ignore', 'pipe', 'ignore'],
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
