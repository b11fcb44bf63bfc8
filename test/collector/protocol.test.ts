import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXEC_ENV_NAMES,
  EXEC_ENV_PREFIXES,
  MAX_EXEC_ENV,
  MAX_EXEC_ENV_SCANNED,
} from '../../src/evidence/exec-env.js';
import type { SysEvent } from '../../src/evidence/types.js';
import { startBpftraceSession } from '../../src/observe/ebpf/bpftrace-session.js';
import { wrapInCgroup } from '../../src/observe/ebpf/cgroup-launcher.js';
import { COLLECTOR_PROTOCOL } from '../../src/observe/ebpf/collector/paths.js';
import { EventAssembler } from '../../src/observe/ebpf/event-assembler.js';
import { EventNormaliser } from '../../src/observe/ebpf/event-normaliser.js';
import { findCgroup2Mount } from '../../src/observe/ebpf/mounts.js';
import { type BpfRecord, parseLine } from '../../src/observe/ebpf/record-parser.js';
import { createRunCgroup, type RunCgroup, removeCgroup } from '../../src/observe/ebpf/run-cgroup.js';
import { callCode, TRACED_CALLS } from '../../src/observe/ebpf/syscall-table.js';
import { ensureTracefs } from '../../src/observe/ebpf/tracefs.js';

// The compiled collector (collector/), run for real: it loads BPF programs into this kernel.
const COLLECTOR_DIR = resolve(import.meta.dirname, '../../collector');
const BINARY = join(COLLECTOR_DIR, 'build', 'agentguard-collector');
const hasBtf = existsSync('/sys/kernel/btf/vmlinux');
if (!hasBtf) console.warn('skipping the collector tests: this kernel has no BTF (/sys/kernel/btf/vmlinux)');
const isRoot = process.getuid?.() === 0;
if (hasBtf && !isRoot) console.warn('skipping the collector tests: loading BPF programs needs root');
const skip = !hasBtf || !isRoot;

let root: string;
let mount: string;
const cgroups: RunCgroup[] = [];
const collectors: ChildProcess[] = [];

beforeAll(async () => {
  if (skip) return;
  // Rebuilds only what changed; the first build takes about half a minute.
  execFileSync('make', ['-C', COLLECTOR_DIR], { stdio: 'pipe', timeout: 300_000 });
  const tracefs = await ensureTracefs();
  if (!tracefs.ok) throw new Error(`tracefs: ${tracefs.reason}`);
  const found = await findCgroup2Mount();
  if (!found) throw new Error('no cgroup v2 mount');
  mount = found;
  root = await realpath(await mkdtemp(join(tmpdir(), 'agentguard-collector-')));
}, 320_000);

afterAll(async () => {
  for (const child of collectors)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cgroup of cgroups) await removeCgroup(cgroup).catch(() => undefined);
  if (root) await rm(root, { recursive: true, force: true });
});

type Collector = { child: ChildProcess; pid: number; socket: string; stderr: () => string; loadMs: number };

async function startCollector(socket: string, args: string[] = []): Promise<Collector> {
  const started = performance.now();
  const child = spawn(BINARY, ['--socket', socket, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  collectors.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const pid = await new Promise<number>((resolvePid, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^READY (\d+)\n/.exec(out);
      if (match) resolvePid(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`collector exited ${code} before READY: ${stderr}`)));
  });
  return { child, pid, socket, stderr: () => stderr, loadMs: performance.now() - started };
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolveExit) => child.once('exit', (code) => resolveExit(code)));
}

/** A protocol client: send a line, await the collector's next line. */
class Client {
  private buffered = '';
  private waiting: ((line: string | null) => void)[] = [];
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered += chunk.toString();
      for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.waiting.shift()?.(line);
      }
    });
    socket.on('close', () => {
      this.closed = true;
      for (const wake of this.waiting.splice(0)) wake(null);
    });
  }

  static connect(path: string): Promise<Client> {
    return new Promise((resolveClient, reject) => {
      const socket = createConnection(path, () => resolveClient(new Client(socket)));
      socket.once('error', reject);
    });
  }

  /** The reply to `line`, or null if the collector closed the connection without one. */
  ask(line: string): Promise<string | null> {
    return new Promise((resolveLine) => {
      if (this.closed) return resolveLine(null);
      this.waiting.push(resolveLine);
      this.socket.write(`${line}\n`);
    });
  }

  /** Resolves once the collector has closed the connection. */
  ended(): Promise<void> {
    return this.closed ? Promise.resolve() : new Promise((done) => this.socket.once('close', () => done()));
  }

  close(): void {
    this.socket.destroy();
  }
}

async function newCgroup(name: string): Promise<RunCgroup> {
  const cgroup = await createRunCgroup(mount, `collector-test-${name}-${process.pid}`);
  cgroups.push(cgroup);
  return cgroup;
}

/** This process's environment with its unset names left out, as a spawn spec carries it. */
function hostEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/** Runs a shell script inside the cgroup, the way a traced run starts its agent. */
function runIn(cgroup: RunCgroup | null, script: string, cwd = root): Promise<number | null> {
  const argv = ['/bin/sh', '-c', script];
  const spec = cgroup ? wrapInCgroup({ argv, cwd, env: hostEnv() }, cgroup.dir) : { argv, cwd };
  return new Promise((resolveRun, reject) => {
    const child = spawn(spec.argv[0] as string, spec.argv.slice(1), { cwd, stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', resolveRun);
  });
}

type Parsed = { events: SysEvent[]; lost: number; lines: string[]; ready: number; ticks: number };

/** A run's file through the same parser, assembler and normaliser as the bpftrace session. */
async function parseFile(path: string): Promise<Parsed> {
  const lines = (await readFile(path)).toString('latin1').split('\n').filter(Boolean);
  const records: Exclude<BpfRecord, { type: 'ready' | 'tick' }>[] = [];
  let lost = 0;
  let ready = 0;
  let ticks = 0;
  let start: number | undefined;
  for (const line of lines) {
    const parsed = parseLine(line);
    if (parsed.kind === 'corrupt') throw new Error(`corrupt line (${parsed.reason}): ${line}`);
    if (parsed.kind === 'lost') lost += parsed.count;
    if (parsed.kind !== 'record') continue;
    const { record } = parsed;
    if (record.type === 'ready') {
      ready++;
      start ??= record.t;
    } else if (record.type === 'tick') ticks++;
    else records.push(record);
  }
  // In time order, as the session's reorder buffer releases them.
  records.sort((a, b) => a.t - b.t);
  const assembler = new EventAssembler();
  const normaliser = new EventNormaliser(start ?? 0);
  const events: SysEvent[] = [];
  for (const record of records) {
    const raw = assembler.push(record);
    const event = raw ? normaliser.push(raw) : null;
    if (event) events.push(event);
  }
  return { events, lost, lines, ready, ticks };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Names of the collector's BPF programs (bpftool shows at most 15 characters). */
const PROGRAM_NAMES = new Set(
  readdirSync(COLLECTOR_DIR)
    .filter((file) => file.endsWith('.bpf.c') || file.endsWith('.bpf.h'))
    .flatMap((file) => readFileSync(join(COLLECTOR_DIR, file), 'utf8').split('\n'))
    .map((line) => /^int ([a-z0-9_]+)\(/.exec(line)?.[1]?.slice(0, 15))
    .filter((name): name is string => name !== undefined),
);

/** Ids of the loaded BPF programs that carry the collector's program names. */
function collectorPrograms(): Set<number> {
  const programs = JSON.parse(execFileSync('bpftool', ['prog', 'show', '-j']).toString()) as {
    id: number;
    name?: string;
  }[];
  return new Set(
    programs.filter((program) => program.name && PROGRAM_NAMES.has(program.name)).map((p) => p.id),
  );
}

let sockets = 0;
function socketPath(): string {
  return join(root, `collector-${sockets++}.sock`);
}

describe('the collector call table', () => {
  it('matches TRACED_CALLS (regenerate with node collector/gen-syscalls.mjs after a change)', () => {
    const header = readFileSync(join(COLLECTOR_DIR, 'syscalls.h'), 'utf8');
    const rows = [...header.matchAll(/\{"([a-z0-9_]+)", "([a-z0-9_]+)", AG_NR_\1, \{(-?\d+), (\d+),/g)].map(
      (match) => ({
        name: match[1],
        tracepoint: match[2],
        code: Number(match[3]),
        paths: Number(match[4]),
      }),
    );
    expect(rows).toEqual(
      TRACED_CALLS.map((call, index) => ({
        name: call.name,
        tracepoint: call.tracepoint,
        code: callCode(index),
        paths: (call.path ? 1 : 0) + (call.path2 ? 1 : 0),
      })),
    );
  });

  it('records the environment variables of exec-env.ts (regenerate with node collector/gen-exec-env.mjs)', () => {
    const header = readFileSync(join(COLLECTOR_DIR, 'exec-env.h'), 'utf8');
    const block = (name: string) =>
      [...(new RegExp(`${name}\\[\\] = \\{([^}]*)\\}`).exec(header)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map(
        (match) => match[1],
      );
    expect(block('EXEC_ENV_NAMES')).toEqual([...EXEC_ENV_NAMES]);
    expect(block('EXEC_ENV_PREFIXES')).toEqual([...EXEC_ENV_PREFIXES]);
    const records = readFileSync(join(COLLECTOR_DIR, 'records.h'), 'utf8');
    expect(/#define MAX_ENV (\d+)/.exec(records)?.[1]).toBe(String(MAX_EXEC_ENV));
    expect(/#define MAX_ENV_SCANNED (\d+)/.exec(records)?.[1]).toBe(String(MAX_EXEC_ENV_SCANNED));
  });

  it('speaks the protocol version the TypeScript side expects', () => {
    const loader = readFileSync(join(COLLECTOR_DIR, 'loader.c'), 'utf8');
    expect(/#define VERSION "(\d+)"/.exec(loader)?.[1]).toBe(COLLECTOR_PROTOCOL);
  });
});

describe.skipIf(skip)('agentguard-collector', () => {
  it('traces a run: exec with argv, a relative open resolved, a connect, forks and exits, nothing from outside', async () => {
    const collector = await startCollector(socketPath());
    console.log(`collector load (start → READY): ${collector.loadMs.toFixed(0)} ms`);
    const cgroup = await newCgroup('one');
    const dir = join(root, 'work dir');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'notes.txt'), 'x\n');
    await writeFile(join(root, 'outside-marker'), 'x\n');
    const port = await closedPort();
    const out = join(root, 'one.jsonl');
    const client = await Client.connect(collector.socket);
    const asked = performance.now();
    const ok = await client.ask(`WATCH ${cgroup.id} ${out}`);
    console.log(`WATCH → OK: ${(performance.now() - asked).toFixed(1)} ms`);
    expect(ok).toMatch(new RegExp(`^OK agentguard-collector ${COLLECTOR_PROTOCOL} libbpf \\d+\\.\\d+ \\S+$`));
    const script = [
      'cat /etc/hostname >/dev/null',
      `cd '${dir}'`,
      'cat ./notes.txt >/dev/null',
      `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' 2>/dev/null`,
      'true',
    ].join('; ');
    const [code] = await Promise.all([
      runIn(cgroup, script),
      runIn(null, `for i in 1 2 3 4 5; do cat '${join(root, 'outside-marker')}' >/dev/null; done`),
    ]);
    expect(code).toBe(0);
    const done = await client.ask('STOP');
    expect(done).toMatch(/^DONE \d+$/);
    await client.ended();
    const { events, lost, ready, ticks } = await parseFile(out);
    expect(ready).toBe(1);
    expect(ticks).toBeGreaterThanOrEqual(1);
    expect(lost).toBe(0);
    expect(done).toBe(`DONE ${lost}`);

    const execs = events.filter((event) => event.kind === 'exec');
    expect(execs).toContainEqual(
      expect.objectContaining({ path: '/usr/bin/cat', argv: ['cat', '/etc/hostname'], result: 0 }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ kind: 'open', path: join(dir, 'notes.txt'), access: 'read' }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        kind: 'connect',
        syscall: 'connect',
        addr: expect.objectContaining({ family: 'inet', ip: '127.0.0.1', port }),
        result: -111,
      }),
    );
    const forks = events.filter((event) => event.kind === 'fork');
    expect(forks.length).toBeGreaterThanOrEqual(3);
    const exits = events.filter((event) => event.kind === 'exit');
    expect(exits.map((event) => event.pid)).toEqual(expect.arrayContaining(forks.map((event) => event.pid)));
    expect(JSON.stringify(events)).not.toContain('outside-marker');
    collector.child.kill('SIGTERM');
    expect(await exited(collector.child)).toBe(0);
    expect(existsSync(collector.socket)).toBe(false);
  });

  it("records an exec's loader and interpreter variables, bounded, and says when it cut them", async () => {
    const collector = await startCollector(socketPath());
    const cgroup = await newCgroup('env');
    const out = join(root, 'env.jsonl');
    const client = await Client.connect(collector.socket);
    expect(await client.ask(`WATCH ${cgroup.id} ${out}`)).toMatch(/^OK /);
    const long = `--require /tmp/${'x'.repeat(300)}.js`;
    const many = Array.from({ length: 600 }, (_, index) => `V${index}=1`).join(' ');
    const script = [
      // Recorded by name and by prefix, a value over one chunk; API_TOKEN never.
      `env -i API_TOKEN=secret LD_PRELOAD=/tmp/a.so NODE_OPTIONS='${long}' GIT_CONFIG_KEY_0=core.hooksPath LD_PRELOAD=/tmp/b.so /bin/true marker-one`,
      'env -i /bin/true marker-none',
      // More entries than the collector scans: the record says it was cut.
      `env -i ${many} LD_AUDIT=/tmp/late.so /bin/true marker-many`,
    ].join('; ');
    expect(await runIn(cgroup, script)).toBe(0);
    expect(await client.ask('STOP')).toMatch(/^DONE /);
    await client.ended();
    const { events } = await parseFile(out);
    const exec = (marker: string) =>
      events.find(
        (event) => event.kind === 'exec' && event.argv?.includes(marker) && event.path === '/bin/true',
      );
    // env(1) sets a repeated name in place: the last value, at the first one's place.
    expect(exec('marker-one')?.env).toEqual([
      'LD_PRELOAD=/tmp/b.so',
      `NODE_OPTIONS=${long}`,
      'GIT_CONFIG_KEY_0=core.hooksPath',
    ]);
    expect(exec('marker-one')?.env_truncated).toBeUndefined();
    expect(exec('marker-none')?.env).toEqual([]);
    expect(exec('marker-many')).toMatchObject({ env: [], env_truncated: true });
    expect(events.flatMap((event) => event.env ?? []).join('\n')).not.toContain('API_TOKEN');
    collector.child.kill('SIGTERM');
    await exited(collector.child);
  });

  it('keeps two runs watched at once apart', async () => {
    const collector = await startCollector(socketPath());
    const [a, b] = [await newCgroup('a'), await newCgroup('b')];
    const outs = [join(root, 'a.jsonl'), join(root, 'b.jsonl')];
    const clients = [await Client.connect(collector.socket), await Client.connect(collector.socket)];
    expect(await clients[0]?.ask(`WATCH ${a.id} ${outs[0]}`)).toMatch(/^OK /);
    expect(await clients[1]?.ask(`WATCH ${b.id} ${outs[1]}`)).toMatch(/^OK /);
    await Promise.all([
      runIn(
        a,
        'for i in 1 2 3; do cat /etc/hostname; ls /proc/self/fdinfo; done; echo alpha-marker-a > /dev/null; exec cat /dev/null /run-a-marker',
      ),
      runIn(
        b,
        'for i in 1 2 3; do cat /etc/hostname; ls /proc/self/fdinfo; done; exec cat /dev/null /run-b-marker',
      ),
    ]);
    expect(await clients[0]?.ask('STOP')).toBe('DONE 0');
    expect(await clients[1]?.ask('STOP')).toBe('DONE 0');
    const [runA, runB] = [await parseFile(outs[0] as string), await parseFile(outs[1] as string)];
    const paths = (run: Parsed) => run.events.map((event) => event.path ?? '');
    expect(paths(runA)).toContain('/run-a-marker');
    expect(paths(runA)).not.toContain('/run-b-marker');
    expect(paths(runB)).toContain('/run-b-marker');
    expect(paths(runB)).not.toContain('/run-a-marker');
    const pidsA = new Set(runA.events.map((event) => event.pid));
    expect(runB.events.some((event) => pidsA.has(event.pid))).toBe(false);
    collector.child.kill('SIGINT');
    expect(await exited(collector.child)).toBe(0);
  });

  it("follows a run into the cgroups below its own (a container engine's, one it moves itself to), and keeps them its own", async () => {
    const collector = await startCollector(socketPath());
    const run = await createRunCgroup(mount, `collector-test-tree-${process.pid}`, { children: true });
    cgroups.push(run);
    const other = await newCgroup('tree-other');
    const out = join(root, 'tree.jsonl');
    const client = await Client.connect(collector.socket);
    expect(await client.ask(`WATCH ${run.id} ${out}`)).toMatch(/^OK /);
    // Made before the run starts (as an engine makes its payload's) and made by the run itself, two deep.
    await mkdir(join(run.dir, 'engine-payload'));
    await runIn(
      run,
      `echo 0 > ${join(run.dir, 'engine-payload', 'cgroup.procs')} && exec cat /tree-marker-payload`,
    );
    await runIn(
      run,
      `mkdir -p ${join(run.dir, 'self', 'deeper')} && echo $$ > ${join(run.dir, 'self', 'deeper', 'cgroup.procs')} && exec cat /tree-marker-moved`,
    );
    await runIn(other, 'exec cat /tree-marker-outside');
    // A watch of a cgroup below a watched one, or above one, is refused: each task is one run's.
    const nested = await Client.connect(collector.socket);
    const payloadId = statSync(join(run.dir, 'engine-payload')).ino;
    expect(await nested.ask(`WATCH ${payloadId} ${join(root, 'nested.jsonl')}`)).toBe(
      `ERR cgroup ${payloadId} lies below cgroup ${run.id}, which another run watches`,
    );
    const parentId = statSync(run.parent).ino;
    const holder = await Client.connect(collector.socket);
    expect(await holder.ask(`WATCH ${parentId} ${join(root, 'holder.jsonl')}`)).toBe(
      `ERR cgroup ${parentId} holds cgroup ${run.id}, which another run watches`,
    );
    expect(await client.ask('STOP')).toBe('DONE 0');
    const paths = (await parseFile(out)).events.map((event) => event.path ?? '');
    expect(paths).toContain('/tree-marker-payload');
    expect(paths).toContain('/tree-marker-moved');
    expect(paths).not.toContain('/tree-marker-outside');
    collector.child.kill('SIGINT');
    expect(await exited(collector.child)).toBe(0);
  });

  it('refuses bad WATCH commands with one ERR line and closes', async () => {
    const collector = await startCollector(socketPath());
    const cgroup = await newCgroup('err');
    const cases: [string, RegExp][] = [
      [`WATCH abc ${join(root, 'x.jsonl')}`, /^ERR the cgroup id must be a decimal number$/],
      [`WATCH 0 ${join(root, 'x.jsonl')}`, /^ERR the cgroup id must be a nonzero/],
      [`WATCH 987654321987 ${join(root, 'x.jsonl')}`, /^ERR no cgroup has id 987654321987$/],
      [`WATCH ${cgroup.id} relative.jsonl`, /^ERR the file path must be absolute$/],
      [
        `WATCH ${cgroup.id} ${join(root, 'missing-dir', 'x.jsonl')}`,
        /^ERR cannot open .*: No such file or directory$/,
      ],
      ['STOP', /^ERR STOP without a WATCH$/],
      ['HELLO', /^ERR unknown command/],
    ];
    for (const [line, expected] of cases) {
      const client = await Client.connect(collector.socket);
      expect(await client.ask(line)).toMatch(expected);
      await client.ended();
    }
    // A cgroup already watched by another run.
    const first = await Client.connect(collector.socket);
    expect(await first.ask(`WATCH ${cgroup.id} ${join(root, 'first.jsonl')}`)).toMatch(/^OK /);
    const second = await Client.connect(collector.socket);
    expect(await second.ask(`WATCH ${cgroup.id} ${join(root, 'second.jsonl')}`)).toMatch(
      /^ERR cgroup \d+ is already watched/,
    );
    // A line longer than any command.
    const long = await Client.connect(collector.socket);
    expect(await long.ask(`WATCH ${cgroup.id} /${'a'.repeat(5000)}`)).toMatch(/^ERR command line too long/);
    // The first watch survived all that; a connection closed without STOP still ends with a TICK.
    first.close();
    await sleep(300);
    const lines = readFileSync(join(root, 'first.jsonl'), 'latin1').trim().split('\n');
    expect(parseLine(lines[0] as string)).toEqual({
      kind: 'record',
      record: { type: 'ready', t: expect.any(Number) },
    });
    expect(lines[lines.length - 1]).toMatch(/^\{"type": "value", "data": \[6,\d+\]\}$/);
    collector.child.kill('SIGTERM');
    expect(await exited(collector.child)).toBe(0);
  });

  it('exits when idle, and a second collector on a live socket exits 3', async () => {
    const socket = socketPath();
    const collector = await startCollector(socket, ['--idle-exit', '1.5']);
    const second = spawn(BINARY, ['--socket', socket], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    second.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    expect(await exited(second)).toBe(3);
    expect(stderr).toContain('already running');
    // Idle for 1.5 s, it gives up its socket at once; detaching ~110 programs then takes a few
    // seconds more before the process ends (longer on a busy host), so the two are timed apart.
    const started = Date.now();
    while (existsSync(socket) && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(socket)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await exited(collector.child)).toBe(0);
  }, 60_000);

  it('lets only one of two collectors started together serve a socket', async () => {
    const socket = socketPath();
    const both = [0, 1].map(() => spawn(BINARY, ['--socket', socket], { stdio: ['ignore', 'pipe', 'pipe'] }));
    collectors.push(...both);
    const outcomes = await Promise.all(
      both.map(
        (child) =>
          new Promise<string>((done) => {
            child.stdout?.on('data', (chunk: Buffer) => {
              if (chunk.toString().startsWith('READY ')) done('ready');
            });
            child.once('exit', (code) => done(`exit ${code}`));
          }),
      ),
    );
    expect(outcomes.sort()).toEqual(['exit 3', 'ready']);
    const client = await Client.connect(socket);
    const cgroup = await newCgroup('race');
    expect(await client.ask(`WATCH ${cgroup.id} ${join(root, 'race.jsonl')}`)).toMatch(/^OK /);
    expect(await client.ask('STOP')).toBe('DONE 0');
    for (const child of both) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(both.map(exited));
  });

  it('leaves no BPF program behind when killed with -9', async () => {
    // By id: other collectors (other users of this host) may come and go meanwhile.
    const before = collectorPrograms();
    const socket = socketPath();
    const collector = await startCollector(socket);
    const loaded = [...collectorPrograms()].filter((id) => !before.has(id));
    expect(loaded.length).toBeGreaterThanOrEqual(10);
    // Mid-run: the run's connection ends without DONE, which is how a run notices.
    const cgroup = await newCgroup('killed');
    const client = await Client.connect(socket);
    expect(await client.ask(`WATCH ${cgroup.id} ${join(root, 'killed.jsonl')}`)).toMatch(/^OK /);
    collector.child.kill('SIGKILL');
    await exited(collector.child);
    expect(await client.ask('STOP')).toBeNull();
    const left = () => {
      const now = collectorPrograms();
      return loaded.filter((id) => now.has(id));
    };
    // The kernel frees a dead process's programs after an RCU grace period: seconds on a loaded host.
    for (let attempt = 0; attempt < 300 && left().length > 0; attempt++) await sleep(100);
    expect(left()).toEqual([]);
    // Its socket is stale now: the next collector takes it over.
    const next = await startCollector(socket);
    next.child.kill('SIGTERM');
    expect(await exited(next.child)).toBe(0);
  });

  it('counts lost records under a flood with a tiny ring, and says so', async () => {
    const collector = await startCollector(socketPath(), ['--ring-kib', '16']);
    const cgroup = await newCgroup('flood');
    const out = join(root, 'flood.jsonl');
    const client = await Client.connect(collector.socket);
    expect(await client.ask(`WATCH ${cgroup.id} ${out}`)).toMatch(/^OK /);
    // Faster than the collector can drain a 16 KiB ring on any host: three tight loops at once.
    const loop = `python3 -c "for i in range(100000): open('/etc/hostname').close()"`;
    await runIn(cgroup, `${loop} & ${loop} & ${loop}; wait`);
    const done = await client.ask('STOP');
    const { lost, lines } = await parseFile(out);
    expect(lost).toBeGreaterThan(0);
    expect(done).toBe(`DONE ${lost}`);
    expect(lines.some((line) => line.startsWith('{"type": "lost_events", "data": {"events": '))).toBe(true);
    collector.child.kill('SIGTERM');
    expect(await exited(collector.child)).toBe(0);
  });

  it('gives the same normalised events as the bpftrace script for file operations', async () => {
    const dir = join(root, 'same');
    await mkdir(join(dir, 'sub'), { recursive: true });
    await mkdir(join(dir, 'mnt'), { recursive: true });
    await writeFile(join(dir, 'sub', 'file.txt'), 'x\n');
    const workload = [
      `cd '${dir}/sub'`,
      'cat ./file.txt /etc/hostname >/dev/null',
      'mkdir ../made',
      'mv ../made ../moved',
      'ln -s file.txt link.txt',
      'rm link.txt',
      'rmdir ../moved',
      'cat /nonexistent-file 2>/dev/null',
      './no-such-program 2>/dev/null',
      // Bytes JSON must escape, and one that is not UTF-8.
      `f=$(printf 'we"ird\\\\ta\\tb\\001\\377'); touch "./$f"; rm "./$f"`,
      // A walk that crosses a mount point (a tmpfs in a private mount namespace); mount also
      // makes remembered walks stale.
      `unshare -m sh -c "mount -t tmpfs none '${dir}/mnt' && cd '${dir}/mnt' && mkdir d && cd d && touch ./inside && cat ./inside ../d/inside"`,
      'true',
    ].join('; ');
    const { bpftrace, compiled } = await underBoth('files', workload, dir);
    expect(compiled.size).toBeGreaterThan(10);
    expect([...compiled].join('\n')).toContain(JSON.stringify(`${dir}/sub/we"ird\\ta\tb\u0001\ufffd`));
    // Walked across the tmpfs mount point, after the mount made the remembered walks stale.
    expect([...compiled].join('\n')).toContain(`["open","openat","${dir}/mnt/d/inside"`);
    expect([...compiled].sort(), differences(compiled, bpftrace)).toEqual([...bpftrace].sort());
  }, 180_000);

  it('gives the same normalised events as the bpftrace script for the evasive mechanisms', async () => {
    // The programs of test/tracer-coverage: legacy opens, i386 calls, io_uring, memfd exec.
    const bin = join(root, 'bin');
    await mkdir(bin, { recursive: true });
    const programs = resolve(import.meta.dirname, '../tracer-coverage/programs');
    for (const name of ['compat-calls', 'io-uring-ops', 'legacy-open', 'memfd-exec']) {
      execFileSync('cc', ['-static', '-no-pie', '-O1', '-o', join(bin, name), join(programs, `${name}.c`)]);
    }
    const dir = join(root, 'mechanisms');
    const long = 'd'.repeat(200);
    await mkdir(join(dir, long), { recursive: true });
    for (const name of ['cov-open', 'cov-openat2', 'cov-i386', 'cov-uring'])
      await writeFile(join(dir, `${name}.txt`), 'x\n');
    await writeFile(join(dir, long, 'f'.repeat(150)), 'x\n');
    const py = (code: string) => `python3 -c "${code}" 2>/dev/null`;
    const workload = [
      `cd '${dir}'`,
      `B='${bin}'`,
      '"$B/legacy-open" open cov-open.txt',
      '"$B/legacy-open" creat cov-creat.txt',
      '"$B/legacy-open" openat2 cov-openat2.txt',
      '"$B/compat-calls" open cov-i386.txt > /dev/null',
      '"$B/compat-calls" connect 7',
      '"$B/io-uring-ops" read cov-uring.txt > /dev/null',
      '"$B/io-uring-ops" connect 13',
      '"$B/memfd-exec" /usr/bin/true cov-memfd',
      py(
        "import os; fd = os.memfd_create('py'); os.write(fd, open('/usr/bin/true', 'rb').read()); os.execv('/proc/self/fd/%d' % fd, ['cov-procfd'])",
      ),
      py("import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', 19))"),
      py(
        "import socket\nfor a in ['/nonexistent/agentguard.sock', '\\0agentguard-abstract']:\n  try: socket.socket(socket.AF_UNIX).connect(a)\n  except OSError: pass",
      ),
      `cat '${long}/${'f'.repeat(150)}' > /dev/null`,
      `cd '${long}' && cat ./${'f'.repeat(150)} > /dev/null`,
      'true',
    ].join('\n');
    const { bpftrace, compiled } = await underBoth('mechanisms', workload, dir);
    const joined = [...compiled].join('\n');
    for (const seen of [
      '["open","io_uring:OPENAT",',
      '["other","io_uring:READ",',
      '["open","ia32:open",',
      '["connect","ia32:connect",',
      '["exec","execveat","memfd:payload",',
      '["exec","execve","memfd:py",',
      '["connect","sendto",',
      '"family":"unix","path":"/nonexistent/agentguard.sock"',
      '["open","creat",',
      '["open","openat2",',
      `${long}/${'f'.repeat(150)}"`,
    ])
      expect(joined).toContain(seen);
    expect([...compiled].sort(), differences(compiled, bpftrace)).toEqual([...bpftrace].sort());
  }, 240_000);

  it('gives the same normalised events as the bpftrace script for what the security rules judge', async () => {
    // chmod modes (exec-setid-bit), raw sockets (net-raw-socket), namespaces (exec-namespace-change)
    // and userfaultfd (exec-userfaultfd). Run as root outside a sandbox: most calls succeed.
    const dir = join(root, 'rules');
    await mkdir(dir, { recursive: true });
    const py = (code: string) => `python3 -c "${code}"`;
    const workload = [
      `cd '${dir}'`,
      // Both engines run this in the same directory: each starts from a new file (removed at the end).
      "printf '#!/bin/sh\\nid\\n' > helper",
      'chmod 0755 helper',
      'chmod u+s helper',
      // fchmod of a file (its path from the descriptor) and of a pipe (no path).
      py(
        "import os; fd = os.open('helper', os.O_RDONLY); os.fchmod(fd, 0o2755); r, w = os.pipe(); os.fchmod(r, 0o4600)",
      ),
      py(
        'import socket\nfor f, t, p in [(socket.AF_PACKET, socket.SOCK_RAW, 0x0300), (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP), (socket.AF_INET, socket.SOCK_STREAM | socket.SOCK_CLOEXEC, 0)]:\n  try: socket.socket(f, t, p).close()\n  except OSError: pass',
      ),
      'unshare -n true',
      // clone(CLONE_NEWUSER|SIGCHLD) by number (x86_64 56): the child's fork event carries the flag.
      py(
        'import ctypes, os; pid = ctypes.CDLL(None).syscall(56, 0x10000000 | 17, 0, 0, 0, 0)\nif pid == 0: os._exit(0)\nos.waitpid(pid, 0)',
      ),
      // clone3 (435) reads its flags from user memory: CLONE_NEWUSER, then with CLONE_FS, which
      // the kernel refuses (EINVAL): the caller's failed fork carries the flags.
      py(
        "import ctypes, os, struct\nfor flags in [0x10000000, 0x10000000 | 0x200]:\n  args = ctypes.create_string_buffer(struct.pack('11Q', flags, 0, 0, 0, 17, 0, 0, 0, 0, 0, 0), 88)\n  pid = ctypes.CDLL(None).syscall(435, args, 88)\n  if pid == 0: os._exit(0)\n  if pid > 0: os.waitpid(pid, 0)",
      ),
      py(
        "import ctypes, os; fd = os.open('/proc/self/ns/net', os.O_RDONLY); ctypes.CDLL(None).setns(fd, 0x40000000)",
      ),
      // userfaultfd (x86_64 323), allowed to root.
      py('import ctypes; ctypes.CDLL(None).syscall(323, 0)'),
      'rm helper',
    ].join('\n');
    const { bpftrace, compiled } = await underBoth('rules', workload, dir);
    const joined = [...compiled].join('\n');
    for (const seen of [
      `["write-meta","fchmodat","${dir}/helper",null,null,0,null,${0o4755},null]`,
      `["write-meta","fchmodat","${dir}/helper",null,null,0,null,${0o755},null]`,
      `["write-meta","fchmod","${dir}/helper",null,null,0,null,${0o2755},null]`,
      `["write-meta","fchmod",null,null,null,0,null,${0o4600},null]`,
      '["AF_PACKET","SOCK_RAW"]]',
      '["AF_INET","SOCK_RAW","IPPROTO_ICMP"]]',
      '["AF_INET","SOCK_STREAM"]]',
      '["privilege","unshare",null,null,null,0,null,null,["CLONE_NEWNET"]]',
      '["privilege","setns",null,null,null,0,null,null,["CLONE_NEWNET"]]',
      '["privilege","userfaultfd",null,null,null,',
      '["fork","clone",["CLONE_NEWUSER"],true]',
      '["fork","clone3",["CLONE_NEWUSER"],true]',
      '["fork","clone3",["CLONE_NEWUSER"],false]',
    ])
      expect(joined).toContain(seen);
    expect([...compiled].sort()).toEqual([...bpftrace].sort());
  }, 180_000);
});

/** What only one engine saw, for the failure message. */
function differences(compiled: Set<string>, bpftrace: Set<string>): string {
  const only = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x));
  return `only the collector: ${only(compiled, bpftrace).join(' | ')}; only bpftrace: ${only(bpftrace, compiled).join(' | ')}`;
}

/** The same workload traced by bpftrace (the session runs use today) and by the collector. */
/** A dup, dup2, dup3 or F_DUPFD onto stdin or stdout, as both tracers' normaliser records it. */
const isStdioCopy = (e: SysEvent) => e.kind === 'other' && /^(dup[23]?|fcntl(64)?)$/.test(e.syscall);

async function underBoth(
  name: string,
  workload: string,
  dir: string,
): Promise<{ bpftrace: Set<string>; compiled: Set<string> }> {
  // Forks and exits name pids, which differ between the two runs: only a fork's namespace flags
  // (and whether it made a child) are compared. A dup onto stdin or stdout is the collector's
  // evidence of a redirect (with the descriptor's file); bpftrace's are not judged
  // (stdioCopiesUnrecorded), so they are not compared.
  const summary = (events: SysEvent[], cgroupDir: string) =>
    new Set(
      events
        .filter((event) => (event.kind !== 'fork' || event.flags) && event.kind !== 'exit')
        .filter((event) => !isStdioCopy(event))
        .map((event) =>
          JSON.stringify(
            event.kind === 'fork'
              ? [event.kind, event.syscall, event.flags, (event.result ?? 0) > 0]
              : [
                  event.kind,
                  event.syscall,
                  // bpftrace records the paths of opens as written; the collector what the kernel
                  // resolved. (A memfd exec is named alike by both, its descriptor as written.)
                  event.kind === 'exec' ? event.path : (event.path_as_written ?? event.path),
                  event.path2,
                  event.addr,
                  event.result,
                  // An exec's truncation is its argv's, which bpftrace may misread (compared apart).
                  event.kind === 'exec' ? null : event.truncated,
                  event.mode,
                  event.flags,
                ],
          ).replaceAll(cgroupDir, '<cgroup>'),
        ),
    );
  const session = await startBpftraceSession({
    run_id: `collector-compare-${name}-${process.pid}`,
    scratch_dir: join(root, `bpftrace-${name}`),
    workspace: dir,
  });
  const spec = session.wrap({ argv: ['/bin/sh', '-c', workload], cwd: dir, env: hostEnv() });
  const cgroupDir = spec.argv[4] as string;
  await new Promise((done) =>
    spawn(spec.argv[0] as string, spec.argv.slice(1), { cwd: dir }).once('close', done),
  );
  const traced = await session.stop();
  expect(traced.lost_events).toBe(0);

  const collector = await startCollector(socketPath());
  const cgroup = await newCgroup(name);
  const out = join(root, `${name}.jsonl`);
  const client = await Client.connect(collector.socket);
  expect(await client.ask(`WATCH ${cgroup.id} ${out}`)).toMatch(/^OK /);
  await runIn(cgroup, workload, dir);
  await client.ask('STOP');
  const compiled = await parseFile(out);
  collector.child.kill('SIGTERM');
  expect(compiled.lost).toBe(0);
  const kinds = (events: SysEvent[]) => events.map((event) => event.kind).sort();
  expect(kinds(compiled.events)).toEqual(kinds(traced.events));
  // bpftrace reads argv at the exec's entry and, on a loaded host, sometimes gets nothing or empty
  // strings (a page not yet in); every argv it read whole must be in the collector's, which must
  // read all its own (no argument of these workloads is empty).
  const argvs = (events: SysEvent[]) =>
    events.filter((event) => event.kind === 'exec').map((e) => e.argv ?? []);
  const whole = (args: string[]) => args.length > 0 && args.every((a) => a !== '');
  const key = (args: string[], dir: string) => JSON.stringify(args).replaceAll(dir, '<cgroup>');
  const compiledArgv = new Set(argvs(compiled.events).map((a) => key(a, cgroup.dir)));
  for (const args of argvs(traced.events))
    if (whole(args)) expect(compiledArgv).toContain(key(args, cgroupDir));
  for (const args of argvs(compiled.events)) expect(whole(args), JSON.stringify(args)).toBe(true);
  return { bpftrace: summary(traced.events, cgroupDir), compiled: summary(compiled.events, cgroup.dir) };
}
