import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_SETUP_FAILED, bridgeSetupFailure } from './bridge-protocol.js';
import { bridgeBwrapArgs, bridgeSpawn } from './bridge-spawn.js';
import { DnsResponder } from './dns-responder.js';
import { EgressProxy } from './egress-proxy.js';

const run = promisify(execFile);

type Outcome = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

function spawnCollect(
  argv: string[],
  env: Record<string, string>,
  onSpawn?: (pid: number) => void,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const [command = '', ...args] = argv;
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (child.pid !== undefined) onSpawn?.(child.pid);
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function has(command: string, args: string[]): Promise<boolean> {
  return run(command, args).then(
    () => true,
    () => false,
  );
}

let dir: string;
let bridge: string;
let web: HttpServer;
let webPort: number;

beforeAll(async () => {
  // Short path: Unix socket paths are limited to 107 bytes.
  dir = await mkdtemp(join(tmpdir(), 'agb-'));
  // The bridge ships as plain JS from dist/ with its sibling modules; compile them the same
  // way, types stripped, as ES modules.
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  for (const name of ['sandbox-bridge', 'bridge-protocol', 'socket-owner', 'unix-path']) {
    const source = await readFile(fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), 'utf8');
    const compiled = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(join(dir, `${name}.js`), compiled.outputText);
  }
  bridge = join(dir, 'sandbox-bridge.js');
  web = createHttpServer((req, res) => res.end(`fake host saw ${req.headers.host}${req.url}`));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const address = web.address();
  webPort = typeof address === 'object' && address !== null ? address.port : 0;
});

afterAll(async () => {
  web.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sandbox bridge as a launcher (no sandbox)', () => {
  it('listens before the agent starts, and exits with its code', async (ctx) => {
    if (!(await has('curl', ['--version']))) return ctx.skip('curl is not installed');
    const socket = join(dir, 'local.sock');
    const proxy = new EgressProxy({
      allow: ['api.allowed.test'],
      hosts: { 'api.allowed.test': `127.0.0.1:${webPort}` },
      unixPath: socket,
    });
    await proxy.start();
    const port = await freePort();
    const spec = bridgeSpawn(
      {
        argv: ['sh', '-c', 'curl -sS http://api.allowed.test/first; exit 7'],
        cwd: dir,
        env: { PATH: process.env.PATH ?? '' },
      },
      { proxyPort: port, proxySocket: socket, bridgeScript: bridge },
    );
    const outcome = await spawnCollect(spec.argv, spec.env);
    expect(outcome).toMatchObject({ code: 7, stdout: 'fake host saw api.allowed.test/first' });
    expect((await proxy.stop()).map((r) => `${r.host} ${r.decision}`)).toEqual(['api.allowed.test allowed']);
  });

  it('forwards SIGTERM to the agent and dies of the same signal', async () => {
    const port = await freePort();
    const spec = bridgeSpawn(
      { argv: ['sh', '-c', 'echo ready; exec sleep 30'], cwd: dir, env: { PATH: process.env.PATH ?? '' } },
      { proxyPort: port, proxySocket: join(dir, 'unused.sock'), bridgeScript: bridge },
    );
    const started = Date.now();
    const outcome = await spawnCollect(spec.argv, spec.env, (pid) => process.kill(pid, 'SIGTERM'));
    expect(outcome).toMatchObject({ code: null, signal: 'SIGTERM', stdout: 'ready\n' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses to start the agent when it cannot listen, with a clear message and code 125', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const outcome = await spawnCollect(
      [process.execPath, bridge, '--tcp', `${port}:/nowhere.sock`, '--', 'sh', '-c', 'echo agent-ran'],
      { PATH: process.env.PATH ?? '' },
    );
    blocker.close();
    expect(outcome.code).toBe(125);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toMatch(/^agentguard-bridge: cannot listen inside the sandbox: .*EADDRINUSE/);
  });

  it("proves its own setup failure with the harness's token, which no agent inherits or can forge", async () => {
    const token = 'c0ffee'.repeat(5);
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const busy = typeof address === 'object' && address !== null ? address.port : 0;
    const agent = (argv: string[], port: number) =>
      bridgeSpawn(
        { argv, cwd: dir, env: { PATH: process.env.PATH ?? '' } },
        { proxyPort: port, proxySocket: join(dir, 'unused.sock'), bridgeScript: bridge, setupToken: token },
      );
    const failed = agent(['sh', '-c', 'echo agent-ran'], busy);
    const outcome = await spawnCollect(failed.argv, failed.env);
    blocker.close();
    expect(outcome.code).toBe(BRIDGE_SETUP_FAILED);
    expect(bridgeSetupFailure(outcome.stderr, token)).toMatch(
      /^cannot listen inside the sandbox: .*EADDRINUSE/,
    );

    // A started agent sees no token, so a line it prints in the bridge's words proves nothing.
    const forger = agent(
      [
        'sh',
        '-c',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
        'echo "agentguard-bridge: cannot listen inside the sandbox: EACCES [setup ${AGENTGUARD_BRIDGE_SETUP_TOKEN:-none}]" >&2; exit 125',
      ],
      await freePort(),
    );
    const forged = await spawnCollect(forger.argv, forger.env);
    expect(forged.code).toBe(125);
    expect(forged.stderr).toContain('[setup none]');
    expect(bridgeSetupFailure(forged.stderr, token)).toBeNull();
  });
});

describe('sandbox bridge inside bwrap --unshare-net', () => {
  it('reaches allowed hosts only through the proxy, and every lookup is recorded', async (ctx) => {
    if (!(await has('bwrap', ['--unshare-net', '--ro-bind', '/', '/', 'true']))) {
      return ctx.skip('bwrap with --unshare-net is not usable here (missing or not permitted)');
    }
    if (!(await has('curl', ['--version']))) return ctx.skip('curl is not installed');
    const hostIp = Object.values(networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : undefined;
    const proxy = new EgressProxy({
      allow: ['api.allowed.test'],
      hosts: { 'api.allowed.test': `127.0.0.1:${webPort}`, 'evil.test': `127.0.0.1:${webPort}` },
      unixPath: join(dir, 'proxy.sock'),
    });
    const dns = new DnsResponder({
      hosts: { 'api.allowed.test': `127.0.0.1:${webPort}` },
      unixPath: join(dir, 'dns.sock'),
    });
    await proxy.start();
    await dns.start();
    const script = [
      'curl -sS --max-time 5 http://api.allowed.test/inside; echo',
      "curl -s -o /dev/null -w 'evil=%{http_code}\\n' --max-time 5 http://evil.test/",
      `curl -s --noproxy '*' --max-time 3 http://127.0.0.1:${webPort}/; echo "loopback=$?"`,
      hostIp === undefined
        ? 'echo hostip=skipped'
        : `curl -s --noproxy '*' --max-time 3 http://${hostIp}:${webPort}/; echo "hostip=$?"`,
      'getent hosts secret.evil.example; echo "getent=$?"',
      // Not `getent ahosts`: AI_ADDRCONFIG sees no non-loopback address in the sandbox and skips DNS entirely.
      'getent hosts api.allowed.test',
      python === undefined
        ? 'echo py=skipped'
        : `${python} -c 'import socket; socket.gethostbyname("py.evil.example")' 2>/dev/null; echo "py=$?"`,
      'rm -f /run/agentguard/proxy.sock 2>/dev/null; echo "rm=$?"',
      'exit 3',
    ].join('\n');
    const spec = bridgeSpawn(
      { argv: ['sh', '-c', script], cwd: '/', env: { PATH: '/usr/local/bin:/usr/bin:/bin' } },
      {
        node: process.execPath,
        bridgeScript: '/run/agentguard/sandbox-bridge.js',
        dnsSocket: '/run/agentguard/dns.sock',
      },
    );
    const bwrap = [
      'bwrap',
      '--unshare-net',
      '--unshare-pid',
      '--die-with-parent',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      ...bridgeBwrapArgs(dir, { dns: true }),
      '--chdir',
      spec.cwd,
      '--',
      ...spec.argv,
    ];
    const outcome = await spawnCollect(bwrap, spec.env);
    const proxied = await proxy.stop();
    const looked = await dns.stop();
    expect(outcome.stderr).not.toMatch(/agentguard-bridge/);
    expect(outcome.code).toBe(3);
    const lines = outcome.stdout.trim().split('\n');
    expect(lines[0]).toBe('fake host saw api.allowed.test/inside');
    expect(lines).toContain('evil=403');
    // curl exit 7: could not connect. Nothing but the bridge listens in the sandbox's network.
    expect(lines).toContain('loopback=7');
    expect(lines).toContain(hostIp === undefined ? 'hostip=skipped' : 'hostip=7');
    expect(lines).toContain('getent=2');
    expect(lines).toContain('rm=1');
    expect(lines.some((line) => /^127\.0\.0\.1\s+api\.allowed\.test$/.test(line))).toBe(true);
    if (python !== undefined) expect(lines).toContain('py=1');
    expect(proxied.map((r) => `${r.protocol} ${r.host} ${r.decision}`)).toEqual([
      'http api.allowed.test allowed',
      'http evil.test denied',
    ]);
    // Each record names the process that opened the connection, by its host pid.
    for (const r of proxied) {
      expect(r.client).toMatchObject({ pid: expect.any(Number), exe: '/usr/bin/curl' });
      expect(r.client?.pid).not.toBe(r.client?.ns_pid);
    }
    expect(looked.find((r) => r.host === 'secret.evil.example')?.client).toMatchObject({
      pid: expect.any(Number),
      exe: '/usr/bin/getent',
    });
    if (python !== undefined) {
      expect(looked.find((r) => r.host === 'py.evil.example')?.client).toMatchObject({
        pid: expect.any(Number),
        exe: expect.stringMatching(/\/python3/),
      });
    }
    const names = looked.map((r) => `${r.host} ${r.decision}`);
    expect(names).toContain('secret.evil.example denied');
    expect(names).toContain('api.allowed.test allowed');
    if (python !== undefined) expect(names).toContain('py.evil.example denied');
    expect(looked.every((r) => r.protocol === 'dns' && r.port === 53)).toBe(true);
  });
});
