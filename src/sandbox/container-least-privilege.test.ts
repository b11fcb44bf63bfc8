import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SECCOMP_FACT } from '../evidence/seccomp-policy.js';
import { runCommand } from '../exec/run-command.js';
import { containerAvailability, containerSandbox, TEST_IMAGE } from './container.js';
import { chownTree, claimRunUser, type RunUserLease } from './run-user.js';
import type { SandboxContext, SandboxSession } from './types.js';

async function skipReason(): Promise<string | false> {
  if (process.getuid?.() !== 0)
    return 'container least-privilege tests need root (rootful podman, a run user)';
  const podman = await containerAvailability('podman');
  return podman.ok ? false : `podman is not usable: ${podman.reason} (fix: ${podman.fix})`;
}
const skip = await skipReason();
if (skip) console.warn(`skipping container least-privilege tests: ${skip}`);
const hasCc = spawnSync('cc', ['--version']).status === 0;
const x64 = process.arch === 'x64';
if (!hasCc || !x64)
  console.warn('container seccomp probe skipped: it needs cc (apt-get install -y gcc) on x86_64');

const script = resolve(import.meta.dirname, '../../scripts/make-test-image.sh');
let root = '';
let lease: RunUserLease | null = null;
const sessions: SandboxSession[] = [];
const servers: Server[] = [];

/** A run laid out as the CLI lays it out: `<config>/.agentguard/runs/<id>`, the config folder shown. */
function layout(name: string) {
  const configDir = join(root, name);
  const output = join(configDir, '.agentguard');
  const runDir = join(output, 'runs', 'this-run');
  const repoDir = join(runDir, 'repo');
  const hostHome = join(runDir, 'home');
  for (const d of [repoDir, hostHome, join(output, 'runs', 'other-run', 'net')])
    mkdirSync(d, { recursive: true });
  if (!lease) throw new Error('no run user');
  const user = { uid: lease.uid, gid: lease.gid };
  chownTree(repoDir, user);
  chownTree(hostHome, user);
  for (const d of [output, join(output, 'runs'), runDir]) chmodSync(d, 0o700);
  const ctx: SandboxContext = {
    runId: `lp-${process.pid}-${name}`,
    runDir,
    repoDir,
    hostHome,
    agentHome: '/home/agent',
    visible: [configDir],
    user,
    network: { mode: 'none', allow: [], hosts: {} },
    container: { image: TEST_IMAGE, engine: 'podman', memory: '256m', cpus: 1, read_only: true },
  };
  return { ctx, configDir, output };
}

async function inside(ctx: SandboxContext, command: string) {
  const s = await containerSandbox.start(ctx);
  sessions.push(s);
  const spec = s.wrap({ argv: ['sh', '-c', command], cwd: ctx.repoDir, env: { PATH: '/bin:/usr/bin' } });
  const r = await runCommand({ spec, timeoutMs: 30_000, maxOutputBytes: 64 * 1024 });
  return { ...r, s };
}

function compile(name: string, source: string, extra: string[] = []): string {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  chmodSync(bin, 0o755);
  const c = join(bin, `${name}.c`);
  writeFileSync(c, source);
  const out = join(bin, name);
  const r = spawnSync('cc', ['-static', '-O1', ...extra, '-o', out, c], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cc failed: ${r.stderr}`);
  return bin;
}

async function listen(path: string): Promise<Server> {
  const server = createServer((sock) => {
    // The probe closes at once: a write back would fail with EPIPE.
    sock.on('error', () => undefined);
    sock.end();
  });
  servers.push(server);
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(path, ok);
  });
  return server;
}

describe.skipIf(skip)('the container sandbox runs every command as the run user (real podman)', () => {
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'agentguard-ctr-lp-'));
    chmodSync(root, 0o755);
    lease = claimRunUser(join(root, 'leases'));
    execFileSync('sh', [script], { stdio: ['ignore', 'pipe', 'inherit'], timeout: 180_000 });
  }, 200_000);
  afterEach(async () => {
    for (const s of sessions.splice(0)) await s.stop();
    for (const server of servers.splice(0)) server.close();
  });
  afterAll(() => {
    lease?.release();
    rmSync(root, { recursive: true, force: true });
  });

  it('is not root, has no capability, no_new_privs and the seccomp filter, and cannot read a 0600 root file', async () => {
    const { ctx, configDir } = layout('uid');
    const secret = join(configDir, 'root-only.txt');
    writeFileSync(secret, 'root-only-content\n');
    chmodSync(secret, 0o600);
    const r = await inside(
      ctx,
      [
        'echo "$(id -u):$(id -g):$(id -G)"',
        'grep -E "^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):" /proc/self/status',
        `cat ${secret} || echo secret-refused`,
        'echo w > mine.txt && echo workspace-ok',
        'echo h > ~/h.txt && echo home-ok',
        'touch /tmp/t && echo tmp-ok',
      ].join('; '),
    );
    const { uid, gid } = ctx.user ?? { uid: -1, gid: -1 };
    expect(r.stdout).toBe(
      [
        `${uid}:${gid}:${gid}`,
        'CapInh:\t0000000000000000',
        'CapPrm:\t0000000000000000',
        'CapEff:\t0000000000000000',
        'CapBnd:\t0000000000000000',
        'CapAmb:\t0000000000000000',
        'NoNewPrivs:\t1',
        'Seccomp:\t2',
        'secret-refused',
        'workspace-ok',
        'home-ok',
        'tmp-ok',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toMatch(/Permission denied/);
    expect(r.stdout).not.toContain('root-only-content');
    expect(readFileSync(join(ctx.repoDir, 'mine.txt'), 'utf8')).toBe('w\n');
    expect(r.s.facts.run_user).toBe(`${uid}:${gid}`);
    expect(r.s.facts.seccomp).toContain(SECCOMP_FACT);
    expect(r.s.detail).toContain(`run as uid ${uid} with no capabilities and no_new_privs`);
  }, 60_000);

  it.skipIf(!hasCc || !x64)(
    'refuses the keyring, new namespaces and ptrace as the bwrap filter does, and kills a call of another ABI',
    async () => {
      const bin = compile(
        'probe',
        `#define _GNU_SOURCE
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/syscall.h>
static void show(const char *name, long r) { printf("%s=%d\\n", name, r < 0 ? errno : 0); }
int main(int argc, char **argv) {
  setvbuf(stdout, 0, _IONBF, 0);
  show("add_key", syscall(248, "user", "agentguard", "v", 1, -3));
  show("keyctl", syscall(250, 0, -3, 0));
  show("request_key", syscall(249, "user", "agentguard", 0, -3));
  show("unshare_user", syscall(272, CLONE_NEWUSER));
  show("unshare_files", syscall(272, CLONE_FILES));
  show("clone_newns", syscall(56, CLONE_NEWNS | 17, 0, 0, 0, 0));
  show("ptrace", syscall(101, 0, 0, 0, 0));
  show("perf_event_open", syscall(298, 0, 0, -1, -1, 0));
  char params[120]; memset(params, 0, sizeof params);
  show("io_uring_setup", syscall(425, 8, params));
  show("personality_rie", syscall(135, 0x0400000));
  show("personality_query", syscall(135, 0xffffffff) < 0 ? -1 : 0);
  if (argc > 1) syscall(39 | 0x40000000);
  return 0;
}
`,
        ['-no-pie'],
      );
      const { ctx } = layout('seccomp');
      const r = await inside(
        { ...ctx, visible: [...ctx.visible, bin] },
        `${bin}/probe; ${bin}/probe x32 >/dev/null`,
      );
      // ENOSYS (38): SCMP_ACT_TRACE with no ptrace tracer, what the collector records at sys_exit.
      expect(r.stdout).toBe(
        [
          'add_key=38',
          'keyctl=38',
          'request_key=38',
          'unshare_user=38',
          'unshare_files=0',
          'clone_newns=38',
          'ptrace=38',
          'perf_event_open=38',
          'io_uring_setup=1',
          'personality_rie=38',
          'personality_query=0',
          '',
        ].join('\n'),
      );
      // The x32 call: the runtime's bad-architecture action kills the process (128 + SIGSYS).
      expect(r.exit_code).toBe(128 + 31);
    },
    60_000,
  );

  it('reaches no socket of the host, the engine or another run; only its own', async () => {
    const { ctx, output } = layout('sockets');
    const bin = hasCc
      ? compile(
          'uconnect',
          `#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    struct sockaddr_un a; memset(&a, 0, sizeof a); a.sun_family = AF_UNIX;
    socklen_t len = sizeof(sa_family_t) + strlen(argv[i]);
    strncpy(a.sun_path, argv[i], sizeof a.sun_path - 1);
    if (argv[i][0] == '@') a.sun_path[0] = 0;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    int r = connect(fd, (struct sockaddr *)&a, len);
    printf("%s %s\\n", argv[i], r == 0 ? "connected" : strerror(errno));
    close(fd);
  }
  return 0;
}
`,
        )
      : null;
    if (!bin) return;
    // The host's /run, an abstract name in the host's network namespace, another run's proxy socket,
    // a root-only socket in a folder the agent is shown, the engines' sockets; and, as the control
    // that the probe can connect, a socket in the run's own workspace.
    const hostRun = `/run/agentguard-lp-${process.pid}.sock`;
    const abstract = `@agentguard-lp-${process.pid}`;
    const otherRun = join(output, 'runs', 'other-run', 'net', 'proxy.sock');
    const shown = join(root, 'shown');
    mkdirSync(shown, { recursive: true });
    chmodSync(shown, 0o755);
    const rootOnly = join(shown, 'root-only.sock');
    const own = join(ctx.repoDir, 'own.sock');
    await listen(hostRun);
    await listen(`\0${abstract.slice(1)}`);
    await listen(otherRun);
    await listen(rootOnly);
    chmodSync(rootOnly, 0o600);
    await listen(own);
    chmodSync(own, 0o666);
    try {
      const targets = [
        hostRun,
        abstract,
        otherRun,
        rootOnly,
        '/run/podman/podman.sock',
        '/var/run/docker.sock',
        '/run/containerd/containerd.sock',
        own,
      ];
      const r = await inside(
        { ...ctx, visible: [...ctx.visible, bin, shown] },
        `${bin}/uconnect ${targets.join(' ')}`,
      );
      const seen = Object.fromEntries(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]),
      );
      expect(seen).toEqual({
        [hostRun]: 'No such file or directory',
        // Its own network namespace: the host's abstract names do not exist there.
        [abstract]: 'Connection refused',
        // Under the masked output folder (and 0700 root's besides).
        [otherRun]: 'No such file or directory',
        [rootOnly]: 'Permission denied',
        '/run/podman/podman.sock': 'No such file or directory',
        '/var/run/docker.sock': 'No such file or directory',
        '/run/containerd/containerd.sock': 'No such file or directory',
        [own]: 'connected',
      });
    } finally {
      rmSync(hostRun, { force: true });
    }
  }, 60_000);

  it('refuses a harness wrapper: nothing of the harness may run beside the agent as its user', async () => {
    const { ctx } = layout('harness');
    const s = await containerSandbox.start(ctx);
    sessions.push(s);
    expect(() => s.wrap({ argv: ['true'], cwd: ctx.repoDir, env: {} }, (c) => c)).toThrow(/harness wrapper/);
  }, 60_000);
});
