import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SandboxContext } from './types.js';

/** One host path the sandbox shows empty: a file behind an empty file, a folder behind an empty tmpfs. */
export type HostMask = { path: string; how: 'empty file' | 'empty folder' };

/**
 * Root-only files in the host's /etc, which the sandbox shows read-only: password hashes, sudo
 * policy, SSH host and TLS private keys. Only paths that exist are masked (a mount point cannot be
 * created on the read-only host). (Root's own home is not shown at all: system-view.ts.)
 */
export function hostSecretMasks(root = '/'): HostMask[] {
  const files = ['etc/shadow', 'etc/shadow-', 'etc/gshadow', 'etc/gshadow-', 'etc/sudoers'];
  const sshDir = path.join(root, 'etc/ssh');
  let hostKeys: string[] = [];
  try {
    hostKeys = readdirSync(sshDir)
      .filter((n) => /^ssh_host_.*_key$/.test(n))
      .map((n) => path.join('etc/ssh', n));
  } catch {
    // no SSH server configured
  }
  const masks: HostMask[] = [];
  for (const rel of [...files, ...hostKeys.sort()]) {
    const p = path.join(root, rel);
    if (kindOf(p) === 'file') masks.push({ path: p, how: 'empty file' });
  }
  for (const rel of ['etc/sudoers.d', 'etc/ssl/private']) {
    const p = path.join(root, rel);
    if (kindOf(p) === 'dir') masks.push({ path: p, how: 'empty folder' });
  }
  return masks;
}

/**
 * agentguard's own folders: the output folder of this run (every run's canaries, evidence and
 * history, this run's included), and the `.agentguard` folder beside any host folder the agent is
 * shown (the config's folder, agentguard's install folder), which holds earlier runs. The run's own
 * workspace, HOME and task folder are bound back over the mask afterwards.
 */
export function outputMasks(ctx: Pick<SandboxContext, 'runDir' | 'visible' | 'writable'>): HostMask[] {
  // A run folder outside a `runs/` folder (a caller's own layout) hides only itself: its grandparent
  // could be anything, even /.
  const runs = path.dirname(ctx.runDir);
  const output = path.basename(runs) === 'runs' ? path.dirname(runs) : ctx.runDir;
  const dirs = [
    output,
    ...[...ctx.visible, ...(ctx.writable ?? [])].map((v) => path.join(v, '.agentguard')),
  ].map((d) => path.resolve(d));
  return [...new Set(dirs)].filter((d) => kindOf(d) === 'dir').map((d) => ({ path: d, how: 'empty folder' }));
}

/**
 * What the run withholds from the agent even inside a folder it shows (the task's solution, the
 * template's grader files), except a path that the run names itself or that holds one it names:
 * the config asked for it to be seen.
 */
export function withheldMasks(withheld: readonly string[], named: readonly string[]): HostMask[] {
  const masks: HostMask[] = [];
  for (const p of new Set(withheld.map((w) => path.resolve(w)))) {
    if (named.some((n) => isWithin(n, p))) continue;
    const kind = kindOf(p);
    if (kind === 'file') masks.push({ path: p, how: 'empty file' });
    else if (kind === 'dir') masks.push({ path: p, how: 'empty folder' });
  }
  return masks;
}

function isWithin(p: string, dir: string): boolean {
  const rel = path.relative(dir, path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function kindOf(p: string): 'file' | 'dir' | 'other' | 'none' {
  try {
    const st = statSync(p);
    return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other';
  } catch {
    return existsSync(p) ? 'other' : 'none';
  }
}

/** One line for observation.json's sandbox facts. */
export function describeMasks(masks: HostMask[]): string {
  return masks.map((m) => `${m.path} (${m.how})`).join('; ');
}
