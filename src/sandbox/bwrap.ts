import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SpawnSpec } from '../exec/types.js';
import { createPidsLimit, removePidsLimit, wrapInPidsLimit } from './pids-limit.js';
import type { Sandbox, SandboxAvailability, SandboxContext, SandboxSession } from './types.js';

/** Where the proxy's Unix sockets appear inside the sandbox. */
export const SANDBOX_PROXY_DIR = '/run/agentguard';

const FIX = 'apt-get install -y bubblewrap';
const MAX_PIDS = 1024;

export function bwrapAvailability(): SandboxAvailability {
  const version = spawnSync('bwrap', ['--version'], { encoding: 'utf8' });
  if (version.error) return { ok: false, reason: 'bubblewrap (bwrap) is not installed', fix: FIX };
  const trial = spawnSync(
    'bwrap',
    [
      '--die-with-parent',
      '--unshare-pid',
      '--unshare-net',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      'true',
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (trial.status !== 0) {
    const why = (trial.stderr || trial.error?.message || `exit ${trial.status}`).trim().split('\n')[0];
    return {
      ok: false,
      reason: `bwrap cannot create namespaces here (${why})`,
      fix: 'sysctl -w kernel.unprivileged_userns_clone=1, or run agentguard as root',
    };
  }
  return { ok: true, version: version.stdout.trim().replace(/^bubblewrap\s*/, '') };
}

/**
 * The mount and namespace arguments for one sandboxed command. The host's root is visible read-only;
 * the workspace and the run's HOME are the only writable host folders; /tmp, /run and /home are
 * private and empty, and the run's HOME (with its canary credentials) is mounted over the HOME the
 * agent sees, so the harness user's real secrets are out of sight. Folders the run needs that lived
 * under a hidden path come back read-only.
 */
export function bwrapArgs(ctx: SandboxContext, cwd: string): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--cap-drop',
    'ALL',
    '--hostname',
    'agentguard',
  ];
  if (ctx.network.mode !== 'host') args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/run');
  if (existsSync('/home')) args.push('--tmpfs', '/home');
  args.push('--bind', ctx.homeDir, ctx.homeInside);
  for (const dir of ctx.visible) if (existsSync(dir)) args.push('--ro-bind', dir, dir);
  args.push('--bind', ctx.repoDir, ctx.repoDir);
  if (ctx.proxyDir) {
    // Read-only: connect() still works, but the agent cannot remove or swap the harness's sockets.
    args.push('--ro-bind', ctx.proxyDir, SANDBOX_PROXY_DIR);
    const resolv = path.join(ctx.proxyDir, 'resolv.conf');
    if (existsSync(resolv)) args.push('--ro-bind', resolv, '/etc/resolv.conf');
  }
  args.push('--chdir', cwd);
  return args;
}

export const bwrapSandbox: Sandbox = {
  kind: 'bwrap',
  async available() {
    return bwrapAvailability();
  },
  async start(ctx: SandboxContext): Promise<SandboxSession> {
    const availability = bwrapAvailability();
    const version = availability.ok ? availability.version : 'unknown';
    const net = ctx.network.mode === 'host' ? 'the host network' : 'no network of its own';
    const limit = createPidsLimit(ctx.runId, MAX_PIDS);
    const pids = 'error' in limit ? `no process limit (${limit.error})` : `at most ${MAX_PIDS} processes`;
    return {
      kind: 'bwrap',
      isolated: true,
      version,
      detail:
        `bubblewrap ${version}: read-only host root, writable workspace and run HOME, private /tmp, ` +
        `own PID namespace, no capabilities, ${pids}, ${net}${ctx.proxyDir ? ' except the harness proxy' : ''}`,
      facts: { home_inside: ctx.homeInside, pids_limit: pids },
      wrap(spec: SpawnSpec): SpawnSpec {
        const sandboxed = { ...spec, argv: ['bwrap', ...bwrapArgs(ctx, spec.cwd), '--', ...spec.argv] };
        return 'error' in limit ? sandboxed : wrapInPidsLimit(sandboxed, limit);
      },
      async stop() {
        // --die-with-parent and the PID namespace take every sandboxed process down with bwrap;
        // the pids cgroup catches anything that is still in the middle of dying.
        if (!('error' in limit)) await removePidsLimit(limit);
      },
    };
  },
};
