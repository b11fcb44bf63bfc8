import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectorAvailability } from '../observe/ebpf/engine.js';
import { straceTracer } from '../observe/strace/index.js';
import { CollectorHost } from './engines.js';
import { windowFigures } from './observation-window.js';
import { benchTracer, measure, percentile, type RunSetup, type Sample } from './tracer-overhead-run.js';

const root = mkdtempSync(path.join(tmpdir(), 'ag-bench-run-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const setup: RunSetup = { root, tracers: {}, sandbox: false, live: true, visible: [] };
const catTwice = (work: string) => {
  mkdirSync(work, { recursive: true });
  writeFileSync(path.join(work, 'target.txt'), 'x\n');
  return {
    argv: [
      '/bin/sh',
      '-c',
      'cat target.txt >/dev/null; cat ./target.txt >/dev/null; cat /etc/hostname >/dev/null',
    ],
    cwd: work,
    env: { PATH: '/usr/bin:/bin' },
  };
};

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const values = Array.from({ length: 20 }, (_, i) => 20 - i);
    expect(percentile(values, 50)).toBe(10);
    expect(percentile(values, 95)).toBe(19);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('window figures', () => {
  const sample = (mode: Sample['mode'], start: number, stop: number): Sample => ({
    mode,
    wall_ms: 1,
    start_ms: start,
    stop_ms: stop,
    exit_code: 0,
    stdout: '',
    stderr: '',
    events: 0,
    target_opens: 0,
    lost: 0,
    warnings: [],
    tracer_cpu_ms: 0,
    harness_cpu_ms: 0,
  });

  it('adds open and close per run, and keeps the collector’s first load apart', () => {
    const figures = windowFigures({
      warm: {
        collector: [sample('collector', 2, 30), sample('collector', 4, 50), sample('collector', 3, 400)],
      },
      cold: [sample('collector', 150, 40)],
    });
    expect(figures).toMatchObject({
      window_collector_first_run_ms: 190,
      window_collector_runs: 3,
      window_collector_p50_ms: 54,
      window_collector_p95_ms: 403,
      window_collector_open_p50_ms: 3,
      window_collector_close_p50_ms: 50,
    });
  });
});

describe('an engine as the bench drives it', () => {
  it('counts the opens of the target file that strace recorded, and its events', async () => {
    const available = await straceTracer.available();
    if (!available.ok) throw new Error(available.reason);
    const tracer = benchTracer((ctx) => straceTracer.start(ctx), 'target.txt');
    const sample = await measure(setup, 'strace', 'strace', catTwice, tracer);
    expect(sample.exit_code).toBe(0);
    expect(sample.target_opens).toBe(2);
    expect(sample.events).toBeGreaterThan(3);
    expect(sample.warnings.filter((w) => w.startsWith('onEvent'))).toEqual([]);
  });
});

const collector = await collectorAvailability();
// The collector is built at install time (or named by AGENTGUARD_COLLECTOR_BINARY).
describe.skipIf(!collector.ok)('the bench’s own collector', () => {
  it('loads a daemon on a socket of its own for a cold run, records the run, and ends it', async () => {
    const host = new CollectorHost(path.join(root, 'collector'));
    mkdirSync(path.join(root, 'collector'), { recursive: true });
    const { tracer, socket } = host.coldTracer('target.txt');
    try {
      const sample = await measure(setup, 'collector', 'cold', catTwice, tracer);
      expect(sample.exit_code).toBe(0);
      expect(sample.target_opens).toBe(2);
      expect(sample.lost).toBe(0);
      expect(tracer.cpuPids()).toHaveLength(1);
    } finally {
      await host.end(socket);
    }
    expect(tracer.cpuPids()).toEqual([]);
  });
});
