import type { OverheadSample } from './measure-run.js';
import type { ModeAvailability, OverheadMode } from './modes.js';
import { median, overheadPct, round, spread } from './stats.js';

type Ok = Extract<OverheadSample, { status: 'ok' }>;

/** One figure across trials: the median and the range. */
export type Figure = { median: number; min: number; max: number };

export type ModeSummary = {
  mode: OverheadMode;
  /** Runs that finished / that failed to run (setup error: the tracer did not start). */
  runs: number;
  failed: number;
  observed_by: string[];
  wall_ms: Figure | null;
  agent_ms: Figure | null;
  tests_ms: Figure | null;
  child_cpu_ms: Figure | null;
  harness_cpu_ms: Figure | null;
  daemon_cpu_ms: Figure | null;
  events: Figure | null;
  /** Median wall time against the unobserved runs' median, in percent. */
  wall_overhead_pct: number | null;
  /** Each trial's wall time against the same trial's unobserved run: median and min..max. */
  wall_overhead_paired_pct: { median: number; spread: string } | null;
  cpu_overhead_pct: number | null;
  cpu_overhead_paired_pct: { median: number; spread: string } | null;
};

export type OverheadReport = {
  schema_version: 1;
  kind: 'benchmark-overhead';
  id: string;
  created_at: string;
  config: string;
  agent: string;
  trials: number;
  /** Modes not measured here and why (the tracer cannot run on this host). */
  unavailable: { mode: OverheadMode; reason: string }[];
  modes: ModeSummary[];
  samples: OverheadSample[];
  /** What the figures are and are not. */
  notes: string[];
};

function figure(values: number[]): Figure | null {
  if (values.length === 0) return null;
  return { median: round(median(values), 1), min: Math.min(...values), max: Math.max(...values) };
}

/** Per-trial overhead of `pick` for `mode` against the off run of the same trial. */
function paired(samples: Ok[], mode: OverheadMode, pick: (s: Ok) => number): number[] {
  const off = new Map(samples.filter((s) => s.mode === 'off').map((s) => [s.trial, pick(s)]));
  return samples
    .filter((s) => s.mode === mode && off.has(s.trial))
    .map((s) => overheadPct(pick(s), off.get(s.trial) as number));
}

/** The modes side by side, overhead against `off`. Pure. */
export function summariseModes(
  modes: readonly OverheadMode[],
  samples: readonly OverheadSample[],
): ModeSummary[] {
  const ok = samples.filter((s): s is Ok => s.status === 'ok');
  const cpu = (s: Ok) => s.child_cpu_ms + s.harness_cpu_ms + s.daemon_cpu_ms;
  const offWall = ok.filter((s) => s.mode === 'off').map((s) => s.wall_ms);
  const offCpu = ok.filter((s) => s.mode === 'off').map(cpu);
  return modes.map((mode) => {
    const mine = ok.filter((s) => s.mode === mode);
    const pw = mode === 'off' ? [] : paired(ok, mode, (s) => s.wall_ms);
    const pc = mode === 'off' ? [] : paired(ok, mode, cpu);
    const base = mode !== 'off' && mine.length > 0 && offWall.length > 0;
    return {
      mode,
      runs: mine.length,
      failed: samples.filter((s) => s.mode === mode && s.status === 'failed').length,
      observed_by: [...new Set(mine.map((s) => s.observed_by))],
      wall_ms: figure(mine.map((s) => s.wall_ms)),
      agent_ms: figure(mine.map((s) => s.agent_ms)),
      tests_ms: figure(mine.map((s) => s.tests_ms)),
      child_cpu_ms: figure(mine.map((s) => s.child_cpu_ms)),
      harness_cpu_ms: figure(mine.map((s) => s.harness_cpu_ms)),
      daemon_cpu_ms: figure(mine.map((s) => s.daemon_cpu_ms)),
      events: figure(mine.map((s) => s.events)),
      wall_overhead_pct: base ? overheadPct(median(mine.map((s) => s.wall_ms)), median(offWall)) : null,
      wall_overhead_paired_pct: pw.length ? { median: round(median(pw), 1), spread: spread(pw, 1) } : null,
      cpu_overhead_pct: base ? overheadPct(median(mine.map(cpu)), median(offCpu)) : null,
      cpu_overhead_paired_pct: pc.length ? { median: round(median(pc), 1), spread: spread(pc, 1) } : null,
    };
  });
}

export function unavailableModes(av: readonly ModeAvailability[]): OverheadReport['unavailable'] {
  return av.flatMap((a) => (a.ok ? [] : [{ mode: a.mode, reason: a.reason }]));
}

/** The table the terminal and report.md show. Pure. */
export function renderOverheadTable(r: OverheadReport): string {
  const f = (x: Figure | null, unit = '') => (x ? `${x.median}${unit} (${x.min}..${x.max})` : '—');
  const pct = (x: number | null) => (x === null ? '—' : `${x > 0 ? '+' : ''}${x}%`);
  const pp = (x: { median: number; spread: string } | null) => (x ? `${pct(x.median)} [${x.spread}]` : '—');
  const lines = [
    '| mode | observed by | runs | wall ms | agent ms | tests ms | CPU ms (children + harness + collector) | events | wall overhead (paired median [min..max]) | CPU overhead (paired) |',
    '| --- | --- | ---: | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const m of r.modes) {
    const cpu =
      m.child_cpu_ms && m.harness_cpu_ms && m.daemon_cpu_ms
        ? `${m.child_cpu_ms.median} + ${m.harness_cpu_ms.median} + ${m.daemon_cpu_ms.median}`
        : '—';
    lines.push(
      `| ${m.mode} | ${m.observed_by.join(', ') || '—'} | ${m.runs}${m.failed ? ` (+${m.failed} failed)` : ''} | ${f(m.wall_ms)} | ${f(m.agent_ms)} | ${f(m.tests_ms)} | ${cpu} | ${f(m.events)} | ${pp(m.wall_overhead_paired_pct)} | ${pp(m.cpu_overhead_paired_pct)} |`,
    );
  }
  for (const u of r.unavailable)
    lines.push(`| ${u.mode} | not available here: ${u.reason.replaceAll('|', '\\|')} | 0 | | | | | | | |`);
  return lines.join('\n');
}

export function renderOverheadMarkdown(r: OverheadReport): string {
  return `${[
    `# Monitoring overhead: ${r.config}`,
    '',
    `${r.trials} trial(s) per mode with agent ${r.agent}; each trial runs every mode once, in a rotating order. Figures: median (min..max).`,
    '',
    renderOverheadTable(r),
    '',
    ...r.notes.map((n) => `- ${n}`),
    ...r.samples
      .filter((s) => s.status === 'failed')
      .map((s) => `- ${s.mode} trial ${s.trial} did not run: ${s.status === 'failed' ? s.error : ''}`),
  ].join('\n')}\n`;
}
