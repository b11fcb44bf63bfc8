import { describe, expect, it } from 'vitest';
import type { OverheadSample } from './measure-run.js';
import { renderOverheadTable, summariseModes } from './summarise.js';

function ok(mode: OverheadSample['mode'], trial: number, wall: number, events: number): OverheadSample {
  return {
    mode,
    trial,
    status: 'ok',
    run_id: `${mode}-${trial}`,
    verdict: 'PASS',
    wall_ms: wall,
    agent_ms: wall / 2,
    tests_ms: 100,
    child_cpu_ms: wall / 10,
    harness_cpu_ms: 50,
    daemon_cpu_ms: 0,
    events,
    observed_by: mode,
  };
}

describe('summariseModes', () => {
  const samples: OverheadSample[] = [
    ok('off', 1, 1000, 0),
    ok('off', 2, 1200, 0),
    ok('off', 3, 1100, 0),
    ok('strace', 1, 1500, 90),
    ok('strace', 2, 1200, 100),
    ok('strace', 3, 1650, 110),
    { mode: 'collector', trial: 1, status: 'failed', error: 'tracer did not start' },
  ];
  const [off, strace, collector] = summariseModes(['off', 'strace', 'collector'], samples);

  it('gives the median and range of each figure, and no overhead for the baseline', () => {
    expect(off?.wall_ms).toEqual({ median: 1100, min: 1000, max: 1200 });
    expect(off?.wall_overhead_pct).toBeNull();
    expect(strace?.events).toEqual({ median: 100, min: 90, max: 110 });
  });

  it('gives the overhead of medians and the per-trial overhead against the same trial', () => {
    expect(strace?.wall_overhead_pct).toBe(36.4); // 1500 / 1100
    // Trials: 1500/1000, 1200/1200, 1650/1100 → +50 %, 0 %, +50 %.
    expect(strace?.wall_overhead_paired_pct).toEqual({ median: 50, spread: '0..50' });
  });

  it('counts a mode whose runs failed without inventing figures for it', () => {
    expect(collector).toMatchObject({ runs: 0, failed: 1, wall_ms: null, wall_overhead_pct: null });
  });

  it('renders one row per mode', () => {
    const table = renderOverheadTable({
      schema_version: 1,
      kind: 'benchmark-overhead',
      id: 'x',
      created_at: '',
      config: 'c.yaml',
      agent: 'mock-solve',
      trials: 3,
      unavailable: [{ mode: 'bpftrace', reason: 'not installed' }],
      modes: [off, strace, collector].filter((m) => m !== undefined),
      samples,
      notes: [],
    });
    expect(table.split('\n')).toHaveLength(2 + 4);
    expect(table).toContain('| strace | strace | 3 | 1500 (1200..1650)');
    expect(table).toContain('+50% [0..50]');
    expect(table).toContain('bpftrace | not available here: not installed');
  });
});
