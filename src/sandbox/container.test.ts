import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerConfig, NetworkConfig } from '../config/schema.js';
import { SetupError } from '../errors.js';
import { runCommand } from '../exec/run-command.js';
import { containerAvailability, containerSandbox, listContainers, TEST_IMAGE } from './container.js';
import { containerPrefix } from './container-args.js';
import { engineCommand } from './container-engine.js';
import type { SandboxContext, SandboxSession } from './types.js';

async function skipReason(): Promise<string | false> {
  if (process.getuid?.() !== 0) return 'container sandbox tests need root (rootful podman)';
  const podman = await containerAvailability('podman');
  return podman.ok ? false : `podman is not usable: ${podman.reason} (fix: ${podman.fix})`;
}
const skip = await skipReason();
if (skip) console.warn(`skipping container sandbox tests: ${skip}`);

const script = resolve(import.meta.dirname, '../../scripts/make-test-image.sh');
const cfg = (over: Partial<ContainerConfig> = {}): ContainerConfig => ({
  image: TEST_IMAGE,
  engine: 'podman',
  memory: '256m',
  cpus: 1,
  read_only: true,
  ...over,
});
const net = (mode: NetworkConfig['mode']): NetworkConfig => ({ mode, allow: [], hosts: {} });

let root = '';
let counter = 0;
const sessions: SandboxSession[] = [];

function makeCtx(
  container = cfg(),
  network = net('none'),
  proxyDir?: string,
  visible: string[] = [],
): SandboxContext {
  const runDir = join(root, `run-${++counter}`);
  const ctx: SandboxContext = {
    runId: `t${process.pid}-${counter}`,
    runDir,
    repoDir: join(runDir, 'repo'),
    hostHome: join(runDir, 'home'),
    agentHome: '/home/agent',
    visible,
    network,
    container,
    ...(proxyDir ? { proxyDir } : {}),
  };
  mkdirSync(ctx.repoDir, { recursive: true });
  mkdirSync(ctx.hostHome, { recursive: true });
  return ctx;
}

async function start(ctx = makeCtx()): Promise<{ ctx: SandboxContext; s: SandboxSession }> {
  const s = await containerSandbox.start(ctx);
  sessions.push(s);
  return { ctx, s };
}

type RunOpts = { env?: Record<string, string>; ms?: number; cwd?: string; onStart?: (pid: number) => void };
function run(s: SandboxSession, ctx: SandboxContext, argv: string[], o: RunOpts = {}) {
  const spec = s.wrap({ argv, cwd: o.cwd ?? ctx.repoDir, env: o.env ?? {} });
  return runCommand({
    spec,
    timeoutMs: o.ms ?? 30_000,
    maxOutputBytes: 64 * 1024,
    ...(o.onStart ? { onStart: o.onStart } : {}),
  });
}

describe.skipIf(skip)('container sandbox (real podman)', () => {
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'agentguard-ctr-test-'));
    // Offline: the script builds the image from Debian's busybox-static; it is a no-op when the image exists.
    execFileSync('sh', [script], { stdio: ['ignore', 'pipe', 'inherit'], timeout: 180_000 });
  }, 200_000);
  afterEach(async () => {
    for (const s of sessions.splice(0)) await s.stop();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('runs the command in a container that writes the host workspace, and records the image', async () => {
    const t0 = performance.now();
    const { ctx, s } = await start();
    const startMs = Math.round(performance.now() - t0);
    const r = await run(s, ctx, ['sh', '-c', 'echo hi > out.txt']);
    expect(r.stderr).toBe('');
    expect(r.exit_code).toBe(0);
    expect(readFileSync(join(ctx.repoDir, 'out.txt'), 'utf8')).toBe('hi\n');
    const id = await engineCommand('podman', ['image', 'inspect', '--format', '{{.Id}}', TEST_IMAGE]);
    expect(s.facts.image_id).toBe(id.stdout.trim());
    expect(s.facts).toMatchObject({ engine: 'podman', image: TEST_IMAGE });
    expect(s.facts.runtime).toMatch(/\w/);
    const durations: number[] = [];
    for (let i = 0; i < 3; i++) durations.push((await run(s, ctx, ['true'])).duration_ms);
    console.log(
      `session start ${startMs} ms; wrapped 'true' ${durations.join(', ')} ms; runtime ${s.facts.runtime}`,
    );
  }, 60_000);

  it('propagates the exit code', async () => {
    const { ctx, s } = await start();
    expect((await run(s, ctx, ['sh', '-c', 'exit 7'])).exit_code).toBe(7);
  }, 60_000);

  it('keeps the root read-only, /tmp private and writable, and maps HOME', async () => {
    const { ctx, s } = await start();
    const marker = `agentguard-private-${process.pid}`;
    const r = await run(s, ctx, [
      'sh',
      '-c',
      `touch /etc/x; echo rc=$?; touch /tmp/${marker} && echo tmp-ok; pwd`,
    ]);
    expect(r.stdout).toContain('tmp-ok');
    expect(r.stdout).not.toContain('rc=0');
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(r.stdout).toContain(ctx.repoDir);
    expect(existsSync(join('/tmp', marker))).toBe(false);
    writeFileSync(join(ctx.hostHome, '.token'), 'canary');
    const h = await run(s, ctx, ['sh', '-c', 'pwd; echo $HOME; cat .token'], { cwd: ctx.hostHome });
    expect(h.stdout).toBe('/home/agent\n/home/agent\ncanary');
  }, 60_000);

  it('has no route to the host loopback with network none, but does with host', async () => {
    const server: Server = createServer((sock) => sock.end('HTTP/1.0 200 OK\r\n\r\nhello-from-host'));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    // busybox-static's wget crashes without NSS libraries; nc connects by address alone.
    const fetch = ['sh', '-c', `echo | nc -w 3 127.0.0.1 ${port}`];
    try {
      const none = await start();
      const blocked = await run(none.s, none.ctx, fetch);
      expect(blocked.exit_code).not.toBe(0);
      expect(blocked.stdout).not.toContain('hello-from-host');
      const host = await start(makeCtx(cfg(), net('host')));
      const open = await run(host.s, host.ctx, fetch);
      expect(open.stdout).toContain('hello-from-host');
      expect(open.exit_code).toBe(0);
    } finally {
      server.close();
    }
  }, 60_000);

  it('binds the proxy folder read-only at /run/agentguard in allowlist mode', async () => {
    const proxyDir = join(root, `proxy-${counter}`);
    mkdirSync(proxyDir);
    writeFileSync(join(proxyDir, 'marker'), 'proxy');
    const { ctx, s } = await start(makeCtx(cfg(), net('allowlist'), proxyDir));
    const r = await run(s, ctx, [
      'sh',
      '-c',
      'cat /run/agentguard/marker; touch /run/agentguard/x || echo ro',
    ]);
    expect(r.stdout).toBe('proxyro\n');
    expect(s.facts.network).toBe('none');
  }, 60_000);

  it('passes env values to the process without putting them in argv', async () => {
    const { ctx, s } = await start();
    const env = { SECRET_TOKEN: 'value-xyz-123', MULTI: 'a\nb', PATH: '/bin:/usr/bin', LD_X: 'ld' };
    const spec = s.wrap({
      argv: ['sh', '-c', 'echo "$SECRET_TOKEN|$MULTI|$PATH|$HOME|$LD_X"'],
      cwd: ctx.repoDir,
      env,
    });
    expect(spec.argv.join(' ')).not.toContain('value-xyz-123');
    expect(spec.argv.join(' ')).not.toContain('/bin:/usr/bin');
    expect(spec.env.PATH).not.toBe('/bin:/usr/bin');
    expect(spec.env.LD_X).toBeUndefined();
    const r = await runCommand({ spec, timeoutMs: 30_000, maxOutputBytes: 4096 });
    expect(r.stdout).toBe('value-xyz-123|a\nb|/bin:/usr/bin|/home/agent|ld\n');
  }, 60_000);

  it('binds visible folders read-only, keeps the workspace inside one writable, skips system folders', async () => {
    const runDir = join(root, `run-${counter + 1}`);
    const { ctx, s } = await start(makeCtx(cfg(), net('none'), undefined, [runDir, '/usr']));
    writeFileSync(join(runDir, 'task.txt'), 'task');
    const r = await run(s, ctx, [
      'sh',
      '-c',
      `cat ${runDir}/task.txt; touch ${runDir}/x || echo ro; echo w > w.txt`,
    ]);
    expect(r.stdout).toBe('taskro\n');
    expect(readFileSync(join(ctx.repoDir, 'w.txt'), 'utf8')).toBe('w\n');
    expect(s.facts.visible_skipped).toBe('/usr');
  }, 60_000);

  it('hides the output folder under a visible config folder, except this run, and records it', async () => {
    const configDir = join(root, `cfg-${counter + 1}`);
    const output = join(configDir, '.agentguard');
    const runDir = join(output, 'runs', 'this-run');
    mkdirSync(join(output, 'runs', 'old-run', 'home'), { recursive: true });
    writeFileSync(join(output, 'runs', 'old-run', 'home', 'id_rsa'), 'OLD-CANARY');
    mkdirSync(join(runDir, 'home'), { recursive: true });
    writeFileSync(join(runDir, 'home', 'id_rsa'), 'THIS-CANARY');
    mkdirSync(join(runDir, 'repo'), { recursive: true });
    writeFileSync(join(configDir, 'agentguard.yaml'), 'cfg');
    const ctx: SandboxContext = {
      ...makeCtx(cfg(), net('none'), undefined, [configDir]),
      runDir,
      repoDir: join(runDir, 'repo'),
      hostHome: join(runDir, 'home'),
    };
    const { s } = await start(ctx);
    const r = await run(s, ctx, [
      'sh',
      '-c',
      `cat ${configDir}/agentguard.yaml; find ${output} -type f; cat ~/id_rsa; echo w > w.txt`,
    ]);
    expect(r.stdout).toBe('cfgTHIS-CANARY');
    expect(readFileSync(join(ctx.repoDir, 'w.txt'), 'utf8')).toBe('w\n');
    expect(s.facts.hidden).toBe(`${output} (empty folder)`);
  }, 60_000);

  it('withholds the solution and grader files inside a shown folder, unless named, and binds writable mounts', async () => {
    const configDir = join(root, `cfg-w-${counter + 1}`);
    mkdirSync(join(configDir, 'solution'), { recursive: true });
    writeFileSync(join(configDir, 'solution', 'fix.py'), 'THE-ANSWER');
    writeFileSync(join(configDir, 'grader.py'), 'GRADER');
    writeFileSync(join(configDir, 'agentguard.yaml'), 'cfg');
    const shared = join(root, `shared-${counter + 1}`);
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o777);
    const ctx: SandboxContext = {
      ...makeCtx(cfg(), net('none'), undefined, [configDir]),
      withheld: [join(configDir, 'solution'), join(configDir, 'grader.py')],
      writable: [shared],
    };
    const { s } = await start(ctx);
    const r = await run(s, ctx, [
      'sh',
      '-c',
      `cat ${configDir}/agentguard.yaml; ls ${configDir}/solution; cat ${configDir}/grader.py; echo w > ${shared}/out.txt`,
    ]);
    expect(r.stdout).toBe('cfg');
    expect(readFileSync(join(shared, 'out.txt'), 'utf8')).toBe('w\n');
    expect(s.facts.hidden).toContain(`${join(configDir, 'solution')} (empty folder)`);
  }, 60_000);

  it('applies the memory limit', async () => {
    const { ctx, s } = await start(makeCtx(cfg({ memory: '64m' })));
    const r = await run(s, ctx, [
      'sh',
      '-c',
      'cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max',
    ]);
    expect(r.stdout.trim()).toBe(String(64 * 1024 * 1024));
  }, 60_000);

  it('removes the container when the command times out, and stop() leaves nothing', async () => {
    const { ctx, s } = await start();
    const r = await run(s, ctx, ['sleep', '60'], { ms: 1000 });
    expect(r.timed_out).toBe(true);
    expect(r.duration_ms).toBeLessThan(10_000);
    const running = await engineCommand('podman', [
      'ps',
      '--filter',
      `name=${containerPrefix(ctx.runId)}-`,
      '-q',
    ]);
    expect(running.stdout.trim()).toBe('');
    await s.stop();
    expect(await listContainers('podman', containerPrefix(ctx.runId))).toEqual([]);
  }, 60_000);

  it('a container outlives a SIGKILLed client, and stop() force-removes it', async () => {
    const { ctx, s } = await start();
    const prefix = containerPrefix(ctx.runId);
    let pid = 0;
    const pending = run(s, ctx, ['sleep', '60'], { ms: 60_000, onStart: (p) => (pid = p) });
    const deadline = Date.now() + 20_000;
    while ((await listContainers('podman', prefix)).length === 0 && Date.now() < deadline) {
      await new Promise((ok) => setTimeout(ok, 100));
    }
    process.kill(-pid, 'SIGKILL');
    await pending;
    expect(await listContainers('podman', prefix)).toEqual([`${prefix}-1`]);
    await s.stop();
    expect(await listContainers('podman', prefix)).toEqual([]);
  }, 60_000);

  it('refuses a missing image with a SetupError naming it and the fix, without pulling', async () => {
    const image = 'localhost/agentguard-missing:nope';
    const err = await containerSandbox.start(makeCtx(cfg({ image }))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SetupError);
    expect((err as SetupError).message).toContain(image);
    expect((err as SetupError).message).toMatch(/podman load -i .*make-test-image\.sh/);
  }, 60_000);

  it('reports a docker client without a daemon as unavailable, with the reason', async () => {
    const docker = await containerAvailability('docker');
    if (!docker.ok) expect(docker.reason).toMatch(/docker is not installed|no Docker daemon answers/);
    else expect(docker.version).toMatch(/^docker /);
    const auto = await containerAvailability('auto');
    expect(auto).toMatchObject({ ok: true, version: expect.stringMatching(/^podman /) });
  }, 60_000);
});
