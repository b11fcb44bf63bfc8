import path from 'node:path';
import type { AgentName } from '../agents/index.js';
import type { ResolvedConfig } from '../config/schema.js';
import { writeJson, writeText } from '../evidence/write.js';
import type { RunContext } from '../pipeline/context.js';
import { newRunId } from '../pipeline/run-id.js';
import { measureRun, type OverheadSample } from './measure-run.js';
import { type ModeAvailability, modeAvailability, type OverheadMode } from './modes.js';
import { rotation } from './stats.js';
import {
  type OverheadReport,
  renderOverheadMarkdown,
  summariseModes,
  unavailableModes,
} from './summarise.js';

export type OverheadOptions = {
  /** The runs go where any run goes (runs/, history.db): they are ordinary runs. */
  ctx: RunContext;
  /** Where report.json and report.md go (see overheadDir). */
  reportDir: string;
  cfg: ResolvedConfig;
  agent: AgentName;
  trials: number;
  /** The observed modes asked for (off is always measured: it is the baseline). */
  modes: readonly OverheadMode[];
  log: (line: string) => void;
};

export const OVERHEAD_NOTES = [
  'Every run is a normal run through the run pipeline (sandbox, agent, tests, checks, reports, history); its folder is under runs/ and it is in history.db like any run (run ids in samples).',
  'off is tracer: off: the run is not observed, and its report says so.',
  'One unobserved warm-up run precedes the trials and is not counted.',
  'Wall time is of the whole run; CPU is of the processes the harness waited for (agent, tests, git, sandbox, strace or bpftrace), the harness itself, and in collector mode the collector daemon during the run (it serves every run on the host). Its BPF programs run as system time of the traced processes.',
  'Paired overhead compares each trial with the unobserved run of the same trial; on a shared host its spread is the noise to read the median against.',
  'The figures describe this task on this host; a syscall-heavier agent pays more under strace, whose cost grows with each traced call.',
];

/**
 * The same task with observation off and under each available tracer, `trials` times, runs in
 * a rotating order so no mode always goes first, written to `<reportDir>/report.{json,md}`.
 */
export async function runOverhead(opts: OverheadOptions): Promise<OverheadReport> {
  const now = new Date();
  const wanted: OverheadMode[] = ['off', ...opts.modes.filter((m) => m !== 'off')];
  const availability: ModeAvailability[] = [];
  for (const m of wanted) availability.push(await modeAvailability(m));
  const modes = availability.filter((a) => a.ok).map((a) => a.mode);
  for (const a of availability) if (!a.ok) opts.log(`${a.mode}: not available here: ${a.reason}`);
  // One unmeasured run first: the first run of a process also loads code and warms caches, which
  // would otherwise be charged to whichever mode the rotation puts first.
  if (opts.trials > 0 && modes.length > 0) {
    const warm = await measureRun(opts.ctx, opts.cfg, opts.agent, 'off', 0);
    opts.log(`warm-up run (not counted): ${warm.status === 'ok' ? `${warm.wall_ms} ms` : warm.error}`);
  }
  const samples: OverheadSample[] = [];
  for (let trial = 1; trial <= opts.trials; trial++) {
    for (const mode of rotation(modes, trial - 1)) {
      if (opts.ctx.signal?.aborted) break;
      const s = await measureRun(opts.ctx, opts.cfg, opts.agent, mode, trial);
      samples.push(s);
      opts.log(
        s.status === 'ok'
          ? `trial ${trial} ${mode}: ${s.wall_ms} ms, ${s.events} events, ${s.verdict}`
          : `trial ${trial} ${mode}: did not run: ${s.error}`,
      );
    }
  }
  const report: OverheadReport = {
    schema_version: 1,
    kind: 'benchmark-overhead',
    id: path.basename(opts.reportDir),
    created_at: now.toISOString(),
    config: opts.cfg.config_path,
    agent: opts.agent,
    trials: opts.trials,
    unavailable: unavailableModes(availability),
    modes: summariseModes(modes, samples),
    samples,
    notes: OVERHEAD_NOTES,
  };
  writeJson(path.join(opts.reportDir, 'report.json'), report);
  writeText(path.join(opts.reportDir, 'report.md'), renderOverheadMarkdown(report));
  return report;
}

/** The folder of one overhead measurement's report. */
export function overheadDir(outputDir: string, now: Date): string {
  return path.join(outputDir, 'diagnostics', 'benchmark-overhead', newRunId(now));
}
