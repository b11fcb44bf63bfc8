import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SECCOMP_FACT } from '../evidence/seccomp-policy.js';
import type { SpawnSpec } from '../exec/types.js';
import { describeMasks, type HostMask, hostSecretMasks, outputMasks, withheldMasks } from './host-masks.js';
import { createPidsLimit, removePidsLimit, wrapInPidsLimit } from './pids-limit.js';
import { ROOTLESS_WEAKER, rootlessIdArgs, rootlessLaunch, rootlessNetwork } from './rootless-net.js';
import { userDatabase } from './run-user.js';
import { seccompBytes, seccompSupported } from './seccomp-filter.js';
import { STATUS_FD } from './start-proof.js';
import { describeSystemView, type ShownSystemFolder, systemFolderArgs, systemView } from './system-view.js';
import type {
  HarnessWrapper,
  RunUser,
  Sandbox,
  SandboxAvailability,
  SandboxContext,
  SandboxSession,
} from './types.js';

/** Where the proxy's Unix sockets appear inside the sandbox. */
export const SANDBOX_PROXY_DIR = '/run/agentguard';

const FIX = 'apt-get install -y bubblewrap';
const SETPRIV_FIX = 'apt-get install -y util-linux (it ships setpriv)';
const MAX_PIDS = 1024;

/** bwrap found working in this process, by PATH: the probe spawns three programs, and a run asks twice. */
const workingOn = new Map<string, SandboxAvailability>();

/**
 * Whether bwrap can make the sandbox here. A working bwrap is remembered for the process (a run
 * plans, then starts its session; the demo does so 15 times); one that failed is probed again.
 */
export function bwrapAvailability(): SandboxAvailability {
  const key = process.env.PATH ?? '';
  const known = workingOn.get(key);
  if (known) return known;
  const found = probeBwrap();
  if (found.ok) workingOn.set(key, found);
  return found;
}

function probeBwrap(): SandboxAvailability {
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
  // Without root the network namespace is made first, by unshare, with the loopback brought up by ip.
  if (process.geteuid?.() !== 0) {
    const [launcher = 'unshare', ...launch] = rootlessLaunch(['true']);
    const outer = spawnSync(launcher, launch, { encoding: 'utf8', timeout: 10_000 });
    if (outer.status !== 0) {
      const why = (outer.stderr || outer.error?.message || `exit ${outer.status}`).trim().split('\n')[0];
      return {
        ok: false,
        reason: `without root the sandbox's network namespace cannot be made here (${why})`,
        fix: 'apt-get install -y iproute2 util-linux, and allow unprivileged user namespaces (sysctl -w kernel.unprivileged_userns_clone=1)',
      };
    }
  }
  // As root the sandbox drops each command to the run's user with setpriv.
  if (process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).error)
    return { ok: false, reason: 'setpriv (util-linux) is not installed', fix: SETPRIV_FIX };
  return { ok: true, version: version.stdout.trim().replace(/^bubblewrap\s*/, '') };
}

/** Files the session prepares once, outside anything the agent can see. */
export type BwrapFiles = {
  /** An empty read-only file shown in place of each masked host file. */
  emptyFile: string;
  /** The seccomp program (seccomp-filter.ts), or null where it cannot apply (not x86_64). */
  seccompFile: string | null;
  /** With a run user: files holding the host's /etc/passwd and /etc/group with it added, shown over the host's. */
  userDb?: { passwd: string; group: string };
  /** The system folders shown (system-view.ts), read once per session. Default: read from the host. */
  system?: ShownSystemFolder[];
};

/**
 * What the sandbox's root keeps until the command drops to the run user: setpriv needs the first
 * three; the proxy bridge needs CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH to read which of the run
 * user's processes opened a connection (its 0500 /proc/PID/fd, socket-owner.ts). The command loses them all (and the bounding set) at
 * the drop; the harness's wrappers keep them, at a uid the run user cannot signal, trace or read.
 */
const DROP_CAPS = ['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP', 'CAP_SYS_PTRACE', 'CAP_DAC_READ_SEARCH'];

/**
 * The command run as the run user: real, effective and saved ids changed, no supplementary groups,
 * no capabilities in any set, no_new_privs (a setuid binary or file capability grants nothing).
 */
export function asRunUser(user: RunUser, spec: SpawnSpec): SpawnSpec {
  const drop = [
    'setpriv',
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--ambient-caps=-all',
    '--bounding-set=-all',
    '--no-new-privs',
    '--',
  ];
  return { ...spec, argv: [...drop, ...spec.argv] };
}

/**
 * What the mounts hide, in the order they are applied: only masks inside a folder the sandbox shows
 * (a system folder or one of `visible`); anything else is not shown in the first place.
 */
export function bwrapMasks(ctx: SandboxContext, system: ShownSystemFolder[] = systemView()): HostMask[] {
  const named = [...ctx.visible, ...(ctx.writable ?? [])];
  const shown = [...system.filter((f) => f.how === 'read-only').map((f) => f.path), ...named];
  return [...hostSecretMasks(), ...outputMasks(ctx), ...withheldMasks(ctx.withheld ?? [], named)].filter(
    (m) => shown.some((dir) => isInside(m.path, dir)),
  );
}

function isInside(p: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

type Mount = { dest: string; rank: number; args: string[] };

/**
 * The mount and namespace arguments for one sandboxed command. The view is default-deny: the root is
 * an empty tmpfs, and only the system folders a toolchain needs (system-view.ts) are shown read-only,
 * with /dev, /proc, a private /tmp and /run, the folders the run needs (`visible`: the task's, the
 * config's, the agent's install and toolchains) read-only, and the workspace and the run's HOME
 * writable. The run's HOME (with its canary credentials) is mounted at the HOME the agent sees.
 * Root-only files in /etc and agentguard's output folders inside a shown folder are masked.
 */
export function bwrapArgs(ctx: SandboxContext, cwd: string, files: BwrapFiles): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--cap-drop',
    'ALL',
    ...(ctx.user ? DROP_CAPS.flatMap((cap) => ['--cap-add', cap]) : []),
    '--hostname',
    'agentguard',
  ];
  // Without root the network namespace is made before bwrap (rootless-net.ts), bwrap runs in it.
  const outerNet = rootlessNetwork(ctx.network);
  if (ctx.network.mode !== 'host' && !outerNet) args.push('--unshare-net');
  // Without root bwrap builds the sandbox in a user namespace of its own; the command may make no
  // further one (as root, the drop to the run user and the seccomp filter refuse it).
  if (process.geteuid?.() !== 0 && (outerNet || nestedUsernsRefusable())) {
    args.push('--unshare-user', ...(nestedUsernsRefusable() ? ['--disable-userns'] : []));
    if (outerNet) args.push(...rootlessIdArgs());
  }
  if (files.seccompFile) args.push('--seccomp', String(SECCOMP_FD));
  const system = files.system ?? systemView();
  // bwrap mounts in argument order, so a parent must come before what is mounted inside it: sort by
  // depth, and at equal depth show a system folder or mask, then show a folder the run asked for (it
  // needs it whole), then bind the run's own writable folders.
  const mounts: Mount[] = system.map((f) => ({ dest: f.path, rank: 0, args: systemFolderArgs(f) }));
  mounts.push(
    { dest: '/dev', rank: 0, args: ['--dev', '/dev'] },
    { dest: '/proc', rank: 0, args: ['--proc', '/proc'] },
    // Sticky and open to all, as on a host: the run user writes its own files there.
    { dest: '/tmp', rank: 0, args: ['--perms', '1777', '--tmpfs', '/tmp'] },
    { dest: '/run', rank: 0, args: ['--tmpfs', '/run'] },
  );
  const masks = bwrapMasks(ctx, system);
  for (const m of masks) {
    const how = m.how === 'empty file' ? ['--ro-bind', files.emptyFile, m.path] : ['--tmpfs', m.path];
    mounts.push({ dest: m.path, rank: 0, args: how });
  }
  for (const dir of ctx.visible) {
    if (existsSync(dir)) mounts.push({ dest: dir, rank: 1, args: ['--ro-bind', dir, dir] });
  }
  for (const dir of ctx.writable ?? []) {
    if (existsSync(dir)) mounts.push({ dest: dir, rank: 1, args: ['--bind', dir, dir] });
  }
  mounts.push({ dest: ctx.agentHome, rank: 2, args: ['--bind', ctx.hostHome, ctx.agentHome] });
  mounts.push({ dest: ctx.repoDir, rank: 2, args: ['--bind', ctx.repoDir, ctx.repoDir] });
  mounts.push(...openParents(mounts));
  const depth = (p: string) => path.resolve(p).split('/').filter(Boolean).length;
  mounts.sort((a, b) => depth(a.dest) - depth(b.dest) || a.rank - b.rank);
  for (const m of mounts) args.push(...m.args);
  // The root is bwrap's own tmpfs: nothing may be made at the top level beside what is shown.
  args.push('--remount-ro', '/');
  // A mask stays empty: nothing the agent writes there could pass for the harness's files. The
  // remount does not reach the run's folders bound inside it.
  // (A mask some other mount sits exactly on top of is not one any more.)
  const covered = new Set(mounts.filter((m) => m.rank > 0).map((m) => path.resolve(m.dest)));
  for (const m of masks) {
    if (m.how === 'empty folder' && !covered.has(path.resolve(m.path))) args.push('--remount-ro', m.path);
  }
  if (ctx.proxyDir) {
    // Read-only: connect() still works, but the agent cannot remove or swap the harness's sockets.
    args.push('--ro-bind', ctx.proxyDir, SANDBOX_PROXY_DIR);
    const resolv = path.join(ctx.proxyDir, 'resolv.conf');
    if (existsSync(resolv)) args.push('--ro-bind', resolv, '/etc/resolv.conf');
  }
  if (files.userDb) {
    args.push('--ro-bind', files.userDb.passwd, '/etc/passwd', '--ro-bind', files.userDb.group, '/etc/group');
  }
  args.push('--chdir', cwd);
  return args;
}

/**
 * bwrap makes the folders between a tmpfs (its own root included) and a folder bound inside it mode
 * 0700, which only root may cross: the run user could not reach its own workspace. Each such folder
 * is made first, 0755 (it is empty: nothing but the way to what is bound below it).
 */
function openParents(mounts: Mount[]): Mount[] {
  const dests = new Set(mounts.map((m) => path.resolve(m.dest)));
  const tmpfs = new Set(mounts.filter((m) => m.args.includes('--tmpfs')).map((m) => path.resolve(m.dest)));
  tmpfs.add('/');
  const made = new Set<string>();
  for (const m of mounts) {
    if (m.args.includes('--tmpfs')) continue;
    for (let dir = path.dirname(path.resolve(m.dest)); dir !== '/'; dir = path.dirname(dir)) {
      if (dests.has(dir)) break;
      // The nearest mount above this folder is a tmpfs of the sandbox's own: bwrap would make it.
      let above = path.dirname(dir);
      while (above !== '/' && !dests.has(above)) above = path.dirname(above);
      if (tmpfs.has(above)) made.add(dir);
    }
  }
  return [...made].map((dir) => ({ dest: dir, rank: 0, args: ['--perms', '0755', '--dir', dir] }));
}

/** What the sandbox shows, for observation.json: the system folders, then the run's read-only and writable paths. */
export function describeShown(ctx: SandboxContext, system: ShownSystemFolder[]): string {
  const present = (list: readonly string[]) => [...new Set(list)].filter((d) => existsSync(d));
  const writable = present(ctx.writable ?? []);
  return (
    `${describeSystemView(system)}; read-only for the run: ${present(ctx.visible).join(', ')}` +
    (writable.length > 0 ? `; writable for the run: ${writable.join(', ')}` : '')
  );
}

let refusable: boolean | undefined;

/** bwrap 0.8 and later can stop the command making user namespaces of its own (--disable-userns). */
function nestedUsernsRefusable(): boolean {
  refusable ??=
    spawnSync('bwrap', ['--help'], { encoding: 'utf8' }).stdout?.includes('--disable-userns') ?? false;
  return refusable;
}

/** bwrap reads the seccomp program from an inherited descriptor; this one is opened by a shell redirect. */
const SECCOMP_FD = 9;

/**
 * The full argv: bwrap with its arguments, then the command. A tiny shell opens the seccomp program
 * on SECCOMP_FD and the start-proof status file (start-proof.ts) on STATUS_FD and execs bwrap, so the
 * descriptors exist only for that one exec whatever wraps the command later (pids cgroup, tracer);
 * bwrap closes both before the command starts.
 */
export function bwrapArgv(
  ctx: SandboxContext,
  spec: SpawnSpec,
  files: BwrapFiles,
  statusFile?: string,
): string[] {
  const status = statusFile ? ['--json-status-fd', String(STATUS_FD)] : [];
  const bwrap = ['bwrap', ...status, ...bwrapArgs(ctx, spec.cwd, files), '--', ...spec.argv];
  const opens = [
    ...(files.seccompFile ? [{ fd: SECCOMP_FD, dir: '<', file: files.seccompFile }] : []),
    ...(statusFile ? [{ fd: STATUS_FD, dir: '>', file: statusFile }] : []),
  ];
  if (opens.length === 0) return bwrap;
  // The files are the shell's first parameters, kept in variables and shifted off: "$@" is bwrap.
  const keep = opens.map((_, i) => `f${i}=$${i + 1}`).join('; ');
  const redirects = opens.map((o, i) => `${o.fd}${o.dir}"$f${i}"`).join(' ');
  const script = `${keep}; shift ${opens.length}; exec "$@" ${redirects}`;
  return ['/bin/sh', '-c', script, 'agentguard-bwrap', ...opens.map((o) => o.file), ...bwrap];
}

/** The bwraps (by PATH) that loaded the filter in this process: the program is the same for every session. */
const filterAccepted = new Set<string>();

/**
 * Write the session's empty file and seccomp program under the run folder (masked from the agent),
 * and try the program once: a kernel without seccomp, or a bwrap that refuses it, means the sandbox
 * runs without the filter and says why, rather than failing every command. A bwrap that loaded it
 * once in this process is not asked again.
 */
export function prepareFiles(
  runDir: string,
  user?: { user: RunUser; home: string },
): BwrapFiles & { seccompNote: string } {
  const dir = path.join(runDir, 'sandbox');
  mkdirSync(dir, { recursive: true });
  const emptyFile = path.join(dir, 'empty');
  writeFileSync(emptyFile, '', { mode: 0o444 });
  const userDb = user ? writeUserDb(dir, user.user, user.home) : undefined;
  const withUser = userDb ? { userDb } : {};
  if (!seccompSupported()) {
    return {
      emptyFile,
      ...withUser,
      seccompFile: null,
      seccompNote: `none: the filter is written for x86_64 and this host is ${process.arch}`,
    };
  }
  const seccompFile = path.join(dir, 'seccomp.bpf');
  writeFileSync(seccompFile, seccompBytes(), { mode: 0o444 });
  const refused = filterAccepted.has(process.env.PATH ?? '') ? null : seccompRefusal(seccompFile);
  if (refused === null) filterAccepted.add(process.env.PATH ?? '');
  if (refused)
    return {
      emptyFile,
      ...withUser,
      seccompFile: null,
      seccompNote: `none: bwrap could not load the filter (${refused})`,
    };
  return { emptyFile, ...withUser, seccompFile, seccompNote: SECCOMP_FACT };
}

/**
 * bwrap creates, as root, the folders a shown host folder is mounted on. Under the run HOME they are
 * made here first, so that the harness gives them to the run user with the rest of the HOME and the
 * agent can still write beside them (~/.cache beside a shown ~/.cache/agentguard).
 */
function makeMountPoints(ctx: SandboxContext): void {
  for (const dir of [...ctx.visible, ...(ctx.writable ?? [])]) {
    const rel = path.relative(ctx.agentHome, dir);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    mkdirSync(path.join(ctx.hostHome, rel), { recursive: true });
  }
}

function writeUserDb(dir: string, user: RunUser, home: string): { passwd: string; group: string } {
  const db = userDatabase(user, home);
  const files = { passwd: path.join(dir, 'passwd'), group: path.join(dir, 'group') };
  writeFileSync(files.passwd, db.passwd, { mode: 0o444 });
  writeFileSync(files.group, db.group, { mode: 0o444 });
  return files;
}

/** Why bwrap cannot run a command under this seccomp program, or null when it can. */
export function seccompRefusal(seccompFile: string): string | null {
  const trial = spawnSync(
    '/bin/sh',
    ['-c', `exec bwrap --ro-bind / / --seccomp ${SECCOMP_FD} true ${SECCOMP_FD}<"$0"`, seccompFile],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (trial.status === 0) return null;
  return (trial.stderr || trial.error?.message || `exit ${trial.status}`).trim().split('\n')[0] ?? 'unknown';
}

export const bwrapSandbox: Sandbox = {
  kind: 'bwrap',
  capabilities: {
    isolatesNetwork: true,
    bridgesProxy: true,
    hidesHome: true,
    wrapsCommands: true,
    onHost: false,
    runsAsRunUser: true,
  },
  async available() {
    return bwrapAvailability();
  },
  async start(ctx: SandboxContext): Promise<SandboxSession> {
    const availability = bwrapAvailability();
    const version = availability.ok ? availability.version : 'unknown';
    const net = ctx.network.mode === 'host' ? 'the host network' : 'no network of its own';
    if (ctx.user) makeMountPoints(ctx);
    const limit = createPidsLimit(ctx.runId, MAX_PIDS);
    const system = systemView();
    const files = {
      ...prepareFiles(ctx.runDir, ctx.user ? { user: ctx.user, home: ctx.agentHome } : undefined),
      system,
    };
    const pids = 'error' in limit ? `no process limit (${limit.error})` : `at most ${MAX_PIDS} processes`;
    let wrapped = 0;
    return {
      kind: 'bwrap',
      isolated: true,
      version,
      detail:
        `bubblewrap ${version}: only the system folders and the run's own read-only, writable workspace and run HOME, ` +
        `private /tmp, root-only host files and agentguard's output folders hidden, own PID namespace, ` +
        `${ctx.user ? `run as uid ${ctx.user.uid} with no capabilities and no_new_privs` : process.geteuid?.() !== 0 ? `run without root as the invoking user (uid ${process.getuid?.()}) with no capabilities` : 'no capabilities'}, ` +
        `${files.seccompFile ? SECCOMP_FACT : 'no seccomp filter'}, ${pids}, ${net}${ctx.proxyDir ? ' except the harness proxy' : ''}`,
      facts: {
        home_inside: ctx.agentHome,
        pids_limit: pids,
        shown: describeShown(ctx, system),
        hidden: describeMasks(bwrapMasks(ctx, system)),
        seccomp: files.seccompNote,
        ...(ctx.user ? { run_user: `${ctx.user.uid}:${ctx.user.gid}` } : {}),
        ...(process.geteuid?.() !== 0 ? { weaker_than_root: ROOTLESS_WEAKER } : {}),
      },
      wrap(spec: SpawnSpec, harness?: HarnessWrapper): SpawnSpec {
        const statusFile = path.join(ctx.runDir, 'sandbox', `status-${++wrapped}.jsonl`);
        const startProof = { sandbox: 'bwrap', statusFile };
        let sandboxed: SpawnSpec;
        if (rootlessNetwork(ctx.network)) {
          // Without root there is no other uid to keep the harness's wrapper at: it runs outside
          // bwrap's PID namespace instead, in the network namespace made for the run
          // (rootless-net.ts), where the agent can neither name, signal, trace nor read it.
          const inner = { ...spec, argv: bwrapArgv(ctx, spec, files, statusFile) };
          const outer = harness && ctx.proxyDir ? harness(inner, ctx.proxyDir) : inner;
          sandboxed = { ...outer, argv: rootlessLaunch(outer.argv), startProof };
        } else {
          // The run user is taken on last, right before the command: the harness's wrapper stays root.
          const command = ctx.user ? asRunUser(ctx.user, spec) : spec;
          const inside = harness ? harness(command, SANDBOX_PROXY_DIR) : command;
          sandboxed = { ...inside, argv: bwrapArgv(ctx, inside, files, statusFile), startProof };
        }
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
