import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SysEvent } from '../../evidence/types.js';
import type { SpawnSpec } from '../../exec/types.js';
import type { TracerOutput } from '../types.js';
import { checkAvailability } from './availability.js';
import { LAUNCHER_NAME } from './cgroup-launcher.js';
import { ENGINE_ENV } from './collector/paths.js';
import { collectorAvailability } from './engine.js';
import { ebpfTracer } from './index.js';

const availability = await ebpfTracer.available();
if (!availability.ok)
  console.warn(`skipping the ebpf tracer tests: ${availability.reason} (fix: ${availability.fix})`);
const skip = !availability.ok;

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agentguard-ebpf-')));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs `spec` to completion; stdout is returned. */
function runSpec(spec: SpawnSpec): Promise<{ code: number | null; stdout: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.argv[0] as string, spec.argv.slice(1), {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, pid: child.pid ?? -1 }));
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** pid → ppid → … until `rootPid` (or a dead end); the chain includes both ends. */
function chain(events: SysEvent[], pid: number, rootPid: number): number[] {
  const parents = new Map<number, number>();
  for (const event of events) if (!parents.has(event.pid)) parents.set(event.pid, event.ppid);
  const seen = [pid];
  let current = pid;
  while (current !== rootPid && seen.length < 20) {
    const parent = parents.get(current);
    if (parent === undefined) break;
    seen.push(parent);
    current = parent;
  }
  return seen;
}

// Both engines must pass every test: the compiled collector (the default) and bpftrace (its fallback).
const engines = [
  { engine: 'collector', version: /^agentguard-collector \d+/, ok: (await collectorAvailability()).ok },
  { engine: 'bpftrace', version: /^bpftrace \d+\.\d+/, ok: (await checkAvailability()).ok },
] as const;
for (const { engine } of engines.filter((e) => !e.ok))
  console.warn(`skipping the ebpf tracer tests under ${engine}`);

describe.skipIf(skip).each(engines.filter((e) => e.ok))('ebpf tracer ($engine)', ({ engine, version }) => {
  let before: string | undefined;
  beforeAll(() => {
    before = process.env[ENGINE_ENV];
    process.env[ENGINE_ENV] = engine;
  });
  afterAll(() => {
    if (before === undefined) delete process.env[ENGINE_ENV];
    else process.env[ENGINE_ENV] = before;
  });

  it('traces a scripted workload: execs, process tree, resolved paths, connects, nothing from outside', async () => {
    const ws = join(root, `ws-${engine}`);
    const home = join(root, `home-${engine}`);
    await mkdir(join(ws, 'sub'), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(join(home, 'somefile'), 'secret\n');
    const port = await closedPort();
    const nodeScript = [
      "const fs = require('fs');",
      "for (const name of ['q\"uote', 'sp ace', 'new\\nline', 'caf\\u00e9']) fs.writeFileSync(name, 'x');",
      "fs.writeFileSync(Buffer.from([0x62, 0x61, 0x64, 0xff]), 'x');",
      "const deep = 'd'.repeat(120) + '/' + 'e'.repeat(120) + '/' + 'f'.repeat(120);",
      'fs.mkdirSync(deep, { recursive: true });',
      "fs.writeFileSync(deep + '/long.txt', 'x');",
      `require('net').connect(${port}, '127.0.0.1').on('error', () => process.exit(0));`,
    ].join('\n');
    const script = [
      `sh -c 'sh -c "cat \\"\\$HOME/somefile\\" > /dev/null"'`,
      'cd sub && echo x > out.txt && mv out.txt moved.txt && rm moved.txt && cd ..',
      `/bin/true ${Array.from({ length: 20 }, (_, i) => `arg${i}`).join(' ')}`,
      `"$NODE" -e "$NODE_SCRIPT"`,
    ].join('\n');

    const seen: SysEvent[] = [];
    const session = await ebpfTracer.start({
      run_id: 'test-workload',
      scratch_dir: join(root, `scratch-1-${engine}`),
      workspace: ws,
      onEvent: (event) => seen.push(event),
    });
    let output: TracerOutput;
    let outsider = -1;
    try {
      const spec = session.wrap({
        argv: ['sh', '-c', script],
        cwd: ws,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home,
          NODE: process.execPath,
          NODE_SCRIPT: nodeScript,
        },
      });
      expect(spec.argv.slice(0, 4)).toEqual(['/bin/sh', '-c', expect.any(String), LAUNCHER_NAME]);
      // Something the test process itself does meanwhile, outside the cgroup.
      const [workload, outside] = await Promise.all([
        runSpec(spec),
        runSpec({
          argv: ['cat', '/etc/hostname'],
          cwd: root,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        }),
      ]);
      outsider = outside.pid;
      expect(workload.code).toBe(0);
      // Events stream while the window is open, not only at stop().
      await sleep(800);
      expect(seen.length).toBeGreaterThan(0);
    } finally {
      output = await session.stop();
    }
    const events = output.events;

    expect(output.lost_events).toBe(0);
    expect(output.version).toMatch(version);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index));
    expect(seen).toEqual(events);
    for (let index = 1; index < events.length; index++) {
      expect(events[index]?.ts).toBeGreaterThanOrEqual(events[index - 1]?.ts ?? 0);
    }

    // The root: the launcher's exec of `sh -c script`, with no PATH-lookup noise before it. The
    // script is longer than one string chunk, so argv says it was cut.
    const rootExec = events.find((event) => event.kind === 'exec' && event.argv?.[1] === '-c');
    expect(rootExec).toMatchObject({ result: 0, cwd: ws, truncated: true });
    expect(rootExec?.argv?.[0]).toBe('sh');
    expect(script.startsWith(rootExec?.argv?.[2] ?? '-')).toBe(true);
    const rootPid = rootExec?.pid ?? -1;
    // Before it only the launcher's own restore of its stdout after writing cgroup.procs (a dup onto
    // stdout, recorded since redirects are evidence): no exec attempt, no open.
    expect(events.find((event) => event.pid === rootPid && event.kind !== 'other')).toBe(rootExec);

    // Nested shells: cat reads $HOME/somefile, and its parents lead back to the root.
    const secret = events.find((event) => event.kind === 'open' && event.path === join(home, 'somefile'));
    expect(secret).toMatchObject({ access: 'read', exe: expect.stringMatching(/\/cat$/) });
    expect(secret?.result).toBeGreaterThanOrEqual(0);
    const secretChain = chain(events, secret?.pid ?? -1, rootPid);
    expect(secretChain.at(-1)).toBe(rootPid);
    expect(secretChain.length).toBeGreaterThanOrEqual(3);

    // `cd sub && echo x > out.txt`: a relative write, resolved to an absolute path.
    expect(events).toContainEqual(
      expect.objectContaining({
        kind: 'open',
        path: join(ws, 'sub', 'out.txt'),
        access: 'create',
        pid: rootPid,
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        kind: 'write-meta',
        syscall: expect.stringMatching(/^rename/),
        path: join(ws, 'sub', 'out.txt'),
        path2: join(ws, 'sub', 'moved.txt'),
        result: 0,
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        kind: 'write-meta',
        syscall: 'unlinkat',
        path: join(ws, 'sub', 'moved.txt'),
        result: 0,
      }),
    );

    // argv is capped at 16 and says so.
    const trueExec = events.find((event) => event.kind === 'exec' && event.path === '/bin/true');
    expect(trueExec?.argv).toEqual(['/bin/true', ...Array.from({ length: 15 }, (_, i) => `arg${i}`)]);
    expect(trueExec?.truncated).toBe(true);

    // The node child: odd names come back byte for byte, a long path whole, the connect refused.
    const nodeExec = events.find((event) => event.kind === 'exec' && event.path === process.execPath);
    expect(nodeExec?.argv?.slice(1, 2)).toEqual(['-e']);
    const nodePid = nodeExec?.pid ?? -1;
    const created = events
      .filter((event) => event.pid === nodePid && event.access === 'create')
      .map((e) => e.path);
    for (const name of ['q"uote', 'sp ace', 'new\nline', 'café', 'bad\ufffd'])
      expect(created).toContain(join(ws, name));
    const deep = join(ws, 'd'.repeat(120), 'e'.repeat(120), 'f'.repeat(120), 'long.txt');
    const longOpen = events.find((event) => event.path === deep);
    expect(longOpen).toMatchObject({ access: 'create' });
    expect(longOpen?.truncated).toBeUndefined();
    // Non-blocking, so -EINPROGRESS (or -ECONNREFUSED when the kernel answers at once).
    const connect = events.find((event) => event.kind === 'connect' && event.pid === nodePid);
    expect(connect).toMatchObject({ syscall: 'connect', addr: { family: 'inet', ip: '127.0.0.1', port } });
    expect([-115, -111]).toContain(connect?.result);
    // node's own threads are not processes.
    expect(events.filter((event) => event.kind === 'fork' && event.ppid === nodePid)).toEqual([]);
    expect(chain(events, nodePid, rootPid).at(-1)).toBe(rootPid);

    // Nothing from outside the cgroup.
    expect(events.filter((event) => event.path === '/etc/hostname' || event.pid === outsider)).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ kind: 'exit', pid: rootPid, result: 0 }));
  }, 180_000);

  it('stop() kills what the workload left running and removes the cgroup; a second stop() is the same', async () => {
    const session = await ebpfTracer.start({
      run_id: 'test-lingering',
      scratch_dir: join(root, `scratch-2-${engine}`),
      workspace: root,
    });
    const spec = session.wrap({
      argv: ['sh', '-c', 'sleep 100 >/dev/null 2>&1 & echo $!'],
      cwd: root,
      env: { PATH: '/usr/bin:/bin' },
    });
    const cgroupDir = spec.argv[4] as string;
    let first: TracerOutput;
    let sleeper = -1;
    try {
      expect(existsSync(join(cgroupDir, 'cgroup.procs'))).toBe(true);
      const workload = await runSpec(spec);
      sleeper = Number(workload.stdout.trim());
      expect(sleeper).toBeGreaterThan(0);
      expect(isAlive(sleeper)).toBe(true);
    } finally {
      first = await session.stop();
    }
    expect(isAlive(sleeper)).toBe(false);
    expect(existsSync(cgroupDir)).toBe(false);
    expect(first.warnings.join('\n')).toContain(`killed 1 process(es) still running at stop: ${sleeper}`);
    expect(first.events).toContainEqual(expect.objectContaining({ kind: 'exit', pid: sleeper, result: 137 }));
    expect(await session.stop()).toBe(first);
  }, 180_000);
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers signal 0; it is dead for our purposes.
  return !/^State:\s+Z/m.test(readStatus(pid));
}

function readStatus(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}
