import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SysEvent } from '../../../evidence/types.js';
import type { SpawnSpec } from '../../../exec/types.js';
import type { TracerOutput, TracerSession } from '../../types.js';
import { startBpftraceSession } from '../bpftrace-session.js';
import { collectorAvailability, startEbpf } from '../engine.js';
import { startCollectorSession } from './collector-session.js';
import type { Paths } from './daemon.js';
import { BINARY_ENV, collectorBinary } from './paths.js';

const availability = await collectorAvailability();
if (!availability.ok)
  console.warn(`skipping the compiled collector tests: ${availability.reason} (fix: ${availability.fix})`);
const skip = !availability.ok;

let root: string;
let paths: Paths;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agentguard-collector-')));
  // A collector of these tests' own (its own socket), so that killing it touches no other run.
  paths = {
    socket: join(root, 'collector.sock'),
    lock: join(root, 'start.lock'),
    log: join(root, 'collector.log'),
    binary: collectorBinary(),
    idleExitS: 3,
  };
});
afterAll(async () => {
  for (const pid of collectorPids()) process.kill(pid, 'SIGTERM');
  await rm(root, { recursive: true, force: true });
});

/** The pids of collectors serving this test file's socket. */
function collectorPids(): number[] {
  const out = spawnSync('pgrep', ['-f', `socket ${paths.socket}`], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter(Boolean).map(Number);
}

function runSpec(spec: SpawnSpec): Promise<{ code: number | null; stdout: string }> {
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
    child.once('close', (code) => resolve({ code, stdout }));
  });
}

const shell = (script: string, cwd: string): SpawnSpec => ({
  argv: ['/bin/sh', '-c', script],
  cwd,
  env: { PATH: '/usr/bin:/bin' },
});

async function session(name: string): Promise<TracerSession> {
  await mkdir(join(root, name), { recursive: true });
  return startCollectorSession(
    {
      run_id: `collector-test-${name}`,
      scratch_dir: join(root, name, 'scratch'),
      workspace: join(root, name),
    },
    paths,
  );
}

/** Ids of the BPF programs loaded on the host (bpftool's JSON list). */
function loadedPrograms(): Set<number> {
  const r = spawnSync('bpftool', ['-j', 'prog', 'show'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bpftool prog show failed: ${r.stderr}`);
  return new Set((JSON.parse(r.stdout) as { id: number }[]).map((p) => p.id));
}

/** Ids of the programs a process holds (its bpf-prog and bpf-link descriptors name them in fdinfo). */
function programsOf(pid: number): number[] {
  const ids = new Set<number>();
  for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
    const info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    const match = /^prog_id:\s+(\d+)$/m.exec(info);
    if (match) ids.add(Number(match[1]));
  }
  return [...ids];
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

describe.skipIf(skip)('the compiled collector', () => {
  it('serves three runs at once, each evidence holding only its own processes, started once', async () => {
    const names = ['one', 'two', 'three'];
    // Concurrent first use: three runs ask for a collector that is not running yet.
    const sessions = await Promise.all(names.map((n) => session(n)));
    expect(collectorPids()).toHaveLength(1);
    const outputs = await Promise.all(
      sessions.map(async (s, i) => {
        const name = names[i] as string;
        const cwd = join(root, name);
        const r = await runSpec(
          s.wrap(
            shell(`for i in 1 2 3; do cat /etc/hostname > marker-${name}-$i; done; /bin/echo ${name}`, cwd),
          ),
        );
        expect(r.code).toBe(0);
        return s.stop();
      }),
    );
    outputs.forEach((output: TracerOutput, i) => {
      const name = names[i] as string;
      expect(output.version).toMatch(/agentguard-collector/);
      expect(output.incomplete).toBeUndefined();
      expect(output.lost_events).toBe(0);
      const paths = output.events.flatMap((e) => (e.path ? [e.path] : []));
      for (let k = 1; k <= 3; k++) expect(paths).toContain(join(root, name, `marker-${name}-${k}`));
      for (const other of names.filter((n) => n !== name)) {
        expect(paths.filter((p) => p.includes(`marker-${other}`))).toEqual([]);
      }
      const echo = output.events.find((e) => e.kind === 'exec' && e.argv?.[0] === '/bin/echo');
      expect(echo?.argv).toEqual(['/bin/echo', name]);
    });
  });

  it('records a collector killed with -9 mid-run as an incomplete observation; the next run starts a fresh one', async () => {
    const s = await session('killed');
    const [pid] = collectorPids();
    expect(pid).toBeDefined();
    const run = runSpec(s.wrap(shell('cat /etc/hostname; sleep 1; cat /etc/hostname', join(root, 'killed'))));
    await sleep(300);
    process.kill(pid as number, 'SIGKILL');
    await run;
    const output = await s.stop();
    expect(output.incomplete).toMatch(/the compiled collector stopped serving the run/);
    // The kernel detached its programs with it: a fresh run gets a fresh collector.
    const next = await session('after-kill');
    const r = await runSpec(next.wrap(shell('/bin/echo again', join(root, 'after-kill'))));
    expect(r.code).toBe(0);
    const again = await next.stop();
    expect(again.incomplete).toBeUndefined();
    expect(again.events.some((e) => e.kind === 'exec' && e.argv?.[1] === 'again')).toBe(true);
    expect(collectorPids()).toHaveLength(1);
    expect(collectorPids()[0]).not.toBe(pid);
  });

  it('leaves no BPF program loaded once it is gone (killed, or idle)', async () => {
    // Other runs on the host load programs of their own: follow this collector's by id.
    const gone = (ids: number[]) => {
      const loaded = loadedPrograms();
      return ids.every((id) => !loaded.has(id));
    };
    const s = await session('count');
    await runSpec(s.wrap(shell('/bin/true', join(root, 'count'))));
    await s.stop();
    const [pid] = collectorPids();
    const ids = programsOf(pid as number);
    expect(ids.length).toBeGreaterThan(10);
    expect(gone(ids)).toBe(false);
    process.kill(pid as number, 'SIGKILL');
    expect(await until(() => gone(ids), 10_000)).toBe(true);
    // A stale socket file is left by -9; the next start replaces it, and an idle exit cleans up.
    const next = await session('count-again');
    await next.stop();
    const [second] = collectorPids();
    const secondIds = programsOf(second as number);
    expect(await until(() => collectorPids().length === 0, 20_000)).toBe(true);
    expect(await until(() => gone(secondIds), 10_000)).toBe(true);
    expect(existsSync(paths.socket)).toBe(false);
  });

  it('survives a run whose cgroup vanished before stop', async () => {
    const s = await session('vanish');
    await runSpec(s.wrap(shell('/bin/true', join(root, 'vanish'))));
    // The launcher's argv is sh -c SCRIPT NAME CGROUP-DIR COMMAND...
    const cgroupDir = s.wrap({ argv: ['x'], cwd: '/', env: {} }).argv[4] ?? '';
    expect(cgroupDir).toMatch(/agentguard/);
    await rmdir(cgroupDir);
    const output = await s.stop();
    expect(output.events.some((e) => e.kind === 'exec')).toBe(true);
  });
});

describe.skipIf(skip)('the ebpf engines', () => {
  it('fall back to bpftrace, recorded with the reason, when the collector cannot start', async () => {
    const before = process.env[BINARY_ENV];
    process.env[BINARY_ENV] = join(root, 'no-such-collector');
    try {
      await mkdir(join(root, 'fallback'), { recursive: true });
      const s = await startEbpf({
        run_id: 'collector-test-fallback',
        scratch_dir: join(root, 'fallback', 'scratch'),
        workspace: join(root, 'fallback'),
      });
      expect(s.fallback).toMatchObject({ wanted: 'ebpf (compiled collector)', used: 'ebpf (bpftrace)' });
      expect(s.fallback?.reason).toMatch(/not built/);
      const output = await s.stop();
      expect(output.version).toMatch(/bpftrace/);
    } finally {
      if (before === undefined) delete process.env[BINARY_ENV];
      else process.env[BINARY_ENV] = before;
    }
  }, 120_000);

  it('see the same events for the same workload (the collector misses no argv bpftrace reads)', async () => {
    const ws = join(root, 'same');
    await mkdir(join(ws, 'sub'), { recursive: true });
    const script =
      'cd sub && echo x > out.txt && mv out.txt moved.txt && rm moved.txt && cd .. && /bin/ls -la > /dev/null';
    const observe = async (s: TracerSession) => {
      await runSpec(s.wrap(shell(script, ws)));
      return (await s.stop()).events.filter((e) => e.kind !== 'exit' && e.kind !== 'fork');
    };
    // bpftrace records paths as written only (docs/coverage.md): the engines agree on those.
    // A dup onto stdin or stdout is the collector's evidence of a redirect (naming the descriptor's
    // file); bpftrace's are not judged (stdioCopiesUnrecorded), so they are not compared.
    const lines = (events: SysEvent[]) =>
      events
        .filter((e) => !(e.kind === 'other' && /^(dup[23]?|fcntl(64)?)$/.test(e.syscall)))
        .map(
          (e) =>
            `${e.kind} ${e.syscall} ${e.path_as_written ?? e.path ?? ''} ${e.path2 ?? ''} ${e.access ?? ''} ${e.result}`,
        )
        .sort();
    const compiled = await observe(await session('same-collector'));
    const bpftrace = await observe(
      await startBpftraceSession({
        run_id: 'collector-test-same-bt',
        scratch_dir: join(root, 'same-bt'),
        workspace: ws,
      }),
    );
    expect(lines(compiled)).toEqual(lines(bpftrace));
    // The collector also names the file the kernel opened, by path and identity.
    const created = compiled.find((e) => e.kind === 'open' && e.path === join(ws, 'sub', 'out.txt'));
    expect(created?.ino).toBeGreaterThan(0);
    expect(bpftrace.some((e) => e.ino !== undefined)).toBe(false);
    // bpftrace reads argv at the exec's entry and sometimes gets nothing, or empty strings (a page
    // not yet in); the collector must have every argv bpftrace read whole, and read all its own.
    // (No argument of this workload is empty.)
    const argv = (events: SysEvent[]) => events.filter((e) => e.kind === 'exec').map((e) => e.argv ?? []);
    const whole = (args: string[]) => args.length > 0 && args.every((a) => a !== '');
    const compiledArgv = new Set(argv(compiled).map((a) => a.join(' ')));
    for (const args of argv(bpftrace)) if (whole(args)) expect(compiledArgv).toContain(args.join(' '));
    for (const args of argv(compiled)) expect(whole(args), JSON.stringify(args)).toBe(true);
  }, 120_000);
});
