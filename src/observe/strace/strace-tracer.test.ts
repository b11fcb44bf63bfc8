import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SysEvent } from '../../evidence/types.js';
import type { SpawnSpec } from '../../exec/types.js';
import type { TracerOutput } from '../types.js';
import { createStraceTracer, straceTracer } from './strace-tracer.js';

const availability = await straceTracer.available();
const noStrace = !availability.ok;
if (!availability.ok)
  console.warn(`strace tracer tests skipped: ${availability.reason} (fix: ${availability.fix})`);

const bwrap = spawnSync('bwrap', ['--version'], { encoding: 'utf8' });
const noBwrap = noStrace || bwrap.status !== 0;
if (!noStrace && noBwrap)
  console.warn('strace-under-bwrap test skipped: bwrap --version failed (apt-get install -y bubblewrap)');

const root = mkdtempSync(join(tmpdir(), 'agentguard-strace-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function runToExit(spec: SpawnSpec): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.argv[0] as string, spec.argv.slice(1), { cwd: spec.cwd, env: spec.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** pid → ppid as the events report it; walking it from any pid must reach the root. */
function chainToRoot(events: SysEvent[], pid: number): number[] {
  const parents = new Map(events.map((event) => [event.pid, event.ppid]));
  const chain = [pid];
  for (let at = pid; parents.get(at) !== 0; ) {
    const up = parents.get(at);
    if (up === undefined || chain.includes(up)) break;
    chain.push(up);
    at = up;
  }
  return chain;
}

describe('strace tracer availability', () => {
  it.skipIf(noStrace)('reports the installed version', () => {
    expect(availability).toMatchObject({ ok: true, version: expect.stringMatching(/^\d+\.\d+/) });
  });

  it('explains a missing strace with the install command', async () => {
    const missing = await createStraceTracer({ bin: '/nonexistent/strace' }).available();
    expect(missing).toEqual({
      ok: false,
      reason: '/nonexistent/strace is not installed (not found on PATH)',
      fix: 'apt-get install -y strace',
    });
  });
});

describe.skipIf(noStrace)('strace tracer on a scripted workload', () => {
  const home = join(root, 'home');
  const ws = join(root, 'ws');
  const weird = 'q"uote sp\nnl-é.txt';
  mkdirSync(home, { recursive: true });
  mkdirSync(join(ws, 'sub'), { recursive: true });
  for (const file of ['a', 'c', weird]) writeFileSync(join(ws, file), 'data\n');
  writeFileSync(join(home, 'somefile'), 'secret\n');

  const python = [
    'import socket, subprocess',
    's = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()',
    'c = socket.socket()',
    'try:',
    '    c.connect(("127.0.0.1", port))',
    'except OSError as e:',
    '    print("port", port, e.errno)',
    'subprocess.run(["true"])',
  ].join('\n');
  const script = [
    `sh -c 'sh -c "cat \\"\\$HOME/somefile\\" > /dev/null"'`,
    'cd sub && echo x > out.txt',
    'cd ..',
    'mv a b',
    'rm c',
    'cat "$WEIRD" > /dev/null',
    '/usr/bin/python3 -c "$PY"',
    "sh -c 'exit 5'",
    'exit 3',
  ].join('\n');

  let output: TracerOutput;
  let live: SysEvent[];
  let run: { code: number | null; stdout: string; stderr: string };

  it('runs the workload under strace and returns parsed events', async () => {
    live = [];
    const session = await straceTracer.start({
      run_id: 'strace-test',
      scratch_dir: join(root, 'scratch'),
      workspace: ws,
      onEvent: (event) => live.push(event),
    });
    const env = { PATH: `${join(root, 'nobin')}:/usr/bin:/bin`, HOME: home, WEIRD: weird, PY: python };
    const spec = session.wrap({ argv: ['/bin/sh', '-c', script], cwd: ws, env });
    run = await runToExit(spec);
    output = await session.stop();
    expect(await session.stop()).toBe(output);
    expect(run.code, run.stderr).toBe(3);
    expect(output.version).toBe(availability.ok ? availability.version : '');
    expect(output.lost_events, output.warnings.join('\n')).toBe(0);
    expect(output.events.length).toBeGreaterThan(20);
  });

  it('records the root exec and exit, and every process chains back to it', () => {
    const [first] = output.events;
    expect(first).toMatchObject({
      kind: 'exec',
      ppid: 0,
      argv: ['/bin/sh', '-c', script],
      cwd: ws,
      result: 0,
    });
    const rootPid = first?.pid as number;
    expect(output.events.find((e) => e.kind === 'exit' && e.pid === rootPid)?.result).toBe(3);
    for (const event of output.events) expect(chainToRoot(output.events, event.pid).at(-1)).toBe(rootPid);
  });

  it('follows nested shells: the grandchild cat reads $HOME/somefile', () => {
    const read = output.events.find((e) => e.kind === 'open' && e.path === join(home, 'somefile'));
    expect(read).toMatchObject({ access: 'read', exe: '/usr/bin/cat', syscall: 'openat' });
    expect(read?.result).toBeGreaterThanOrEqual(0);
    const chain = chainToRoot(output.events, read?.pid as number);
    expect(chain.length).toBeGreaterThanOrEqual(4);
    const forks = output.events.filter((e) => e.kind === 'fork');
    for (const [child, parent] of chain.slice(0, -1).map((pid, i) => [pid, chain[i + 1]])) {
      expect(forks.find((e) => e.pid === child)?.ppid).toBe(parent);
    }
  });

  it('resolves a relative write after cd to an absolute path', () => {
    expect(output.events.find((e) => e.path === join(ws, 'sub', 'out.txt'))).toMatchObject({
      kind: 'open',
      access: 'create',
      result: expect.any(Number),
    });
  });

  it('records mv as a rename with both paths and rm as an unlink', () => {
    const rename = output.events.find((e) => e.kind === 'write-meta' && e.syscall.startsWith('rename'));
    expect(rename).toMatchObject({
      path: join(ws, 'a'),
      path2: join(ws, 'b'),
      result: 0,
      exe: '/usr/bin/mv',
    });
    const unlink = output.events.find((e) => e.kind === 'write-meta' && e.syscall.startsWith('unlink'));
    expect(unlink).toMatchObject({ path: join(ws, 'c'), result: 0, exe: '/usr/bin/rm' });
  });

  it('round-trips a file name with a quote, a space, a newline and UTF-8', () => {
    const exec = output.events.find((e) => e.kind === 'exec' && e.argv?.[1] === weird);
    expect(exec).toMatchObject({ path: '/usr/bin/cat', argv: ['cat', weird], result: 0 });
    const open = output.events.find(
      (e) => e.kind === 'open' && e.pid === exec?.pid && e.path?.startsWith(ws),
    );
    expect(open).toMatchObject({ path: join(ws, weird), access: 'read' });
  });

  it('records the python child connecting to a closed port, and its failed PATH search', () => {
    const port = Number(/port (\d+) 111/.exec(run.stdout)?.[1]);
    expect(port).toBeGreaterThan(0);
    const connect = output.events.find((e) => e.kind === 'connect' && e.addr?.port === port);
    expect(connect).toMatchObject({
      syscall: 'connect',
      exe: '/usr/bin/python3',
      addr: { family: 'inet', ip: '127.0.0.1', port },
      result: -111,
    });
    const attempts = output.events.filter((e) => e.kind === 'exec' && e.argv?.[0] === 'true');
    expect(attempts.map((e) => [e.path, e.result])).toEqual([
      [join(root, 'nobin', 'true'), -2],
      ['/usr/bin/true', 0],
    ]);
    expect(chainToRoot(output.events, attempts[0]?.pid as number)).toContain(connect?.pid);
  });

  it('records exit codes of children', () => {
    const exit5 = output.events.find((e) => e.kind === 'exit' && e.result === 5);
    expect(exit5).toMatchObject({ exe: '/usr/bin/sh' });
    const exec = output.events.find((e) => e.kind === 'exec' && e.pid === exit5?.pid);
    expect(exec?.argv).toEqual(['sh', '-c', 'exit 5']);
  });

  it('streamed the same events live', () => {
    expect(live).toEqual(output.events);
  });
});

describe.skipIf(noStrace)('strace tracer live streaming', () => {
  it('delivers an event while the traced process is still running', async () => {
    const target = join(root, 'live-target.txt');
    writeFileSync(target, 'x');
    let seen: (event: SysEvent) => void = () => {};
    const opened = new Promise<SysEvent>((resolve) => {
      seen = resolve;
    });
    const session = await createStraceTracer({ pollMs: 50 }).start({
      run_id: 'strace-live',
      scratch_dir: join(root, 'scratch-live'),
      workspace: root,
      onEvent: (event) => {
        if (event.kind === 'open' && event.path === target) seen(event);
      },
    });
    const spec = session.wrap({
      argv: ['/bin/sh', '-c', 'cat "$T" > /dev/null; sleep 3'],
      cwd: root,
      env: { PATH: '/usr/bin:/bin', T: target },
    });
    let exited = false;
    const done = runToExit(spec).then((result) => {
      exited = true;
      return result;
    });
    const event = await opened;
    expect(exited).toBe(false);
    expect(event).toMatchObject({ access: 'read', exe: '/usr/bin/cat' });
    await done;
    const output = await session.stop();
    expect(output.events.filter((e) => e.path === target)).toHaveLength(1);
  });
});

describe.skipIf(noBwrap)('strace tracer around bwrap', () => {
  it('follows processes into a fresh PID namespace by their host pids', async () => {
    const ws = join(root, 'bwrap-ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'f'), 'x');
    const session = await straceTracer.start({
      run_id: 'strace-bwrap',
      scratch_dir: join(root, 'scratch-bwrap'),
      workspace: ws,
    });
    const sandboxed = ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
    sandboxed.push('--unshare-pid', '--die-with-parent', '--bind', ws, '/tmp/ws', '--chdir', '/tmp/ws');
    const spec = session.wrap({
      argv: [...sandboxed, 'sh', '-c', 'sh -c "cat f; exit 4"'],
      cwd: ws,
      env: { PATH: '/usr/bin:/bin' },
    });
    const run = await runToExit(spec);
    const output = await session.stop();
    expect(run.code, run.stderr).toBe(4);
    expect(output.lost_events).toBe(0);
    expect(output.warnings).toEqual([]);
    const read = output.events.find((e) => e.kind === 'open' && e.path === '/tmp/ws/f');
    expect(read).toMatchObject({ exe: '/usr/bin/cat', access: 'read' });
    // Host pids, not namespace pids (1, 2, 3): every link of the chain was seen forking.
    const chain = chainToRoot(output.events, read?.pid as number);
    expect(chain.every((pid) => pid > 3)).toBe(true);
    expect(output.events.find((e) => e.pid === chain.at(-1))?.exe).toBe('/usr/bin/bwrap');
    expect(chain.length).toBeGreaterThanOrEqual(5);
  });
});

describe.skipIf(noStrace)('strace tracer with two wrapped commands', () => {
  it('traces both trees, each from its own root, with distinct sequence numbers', async () => {
    const ws2 = join(root, 'two');
    mkdirSync(ws2, { recursive: true });
    const session = await straceTracer.start({
      run_id: 'strace-two',
      scratch_dir: join(root, 'two-scratch'),
      workspace: ws2,
    });
    const env = { PATH: '/usr/bin:/bin' };
    const first = session.wrap({ argv: ['/bin/sh', '-c', 'cat /etc/hostname >/dev/null'], cwd: ws2, env });
    expect((await runToExit(first)).code).toBe(0);
    const second = session.wrap({ argv: ['/bin/sh', '-c', 'exec cat /etc/os-release'], cwd: ws2, env });
    expect((await runToExit(second)).code).toBe(0);
    const { events } = await session.stop();
    expect(() => session.wrap(first)).toThrow(/after stop/);
    // As written: /etc/os-release is a link the kernel resolves (to /usr/lib/os-release here).
    const opened = events.filter((e) => e.kind === 'open').map((e) => e.path_as_written ?? e.path);
    expect(opened).toContain('/etc/hostname');
    expect(opened).toContain('/etc/os-release');
    const roots = events.filter((e) => e.kind === 'exec' && e.ppid === 0 && e.argv?.[0] === '/bin/sh');
    const rootArgs = roots.map((e) => e.argv?.[2]);
    expect(rootArgs).toEqual(['cat /etc/hostname >/dev/null', 'exec cat /etc/os-release']);
    expect(roots[0]?.pid).not.toBe(roots[1]?.pid);
    expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
  });
});
