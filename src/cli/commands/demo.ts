import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentName } from '../../agents/index.js';
import { mapSettled } from '../../batch/scheduler.js';
import { loadConfigOrThrow } from '../../config/load.js';
import { errorMessage } from '../../errors.js';
import { stopReasonOf } from '../../exec/interrupt.js';
import { signalExitCode } from '../../exec/shutdown.js';
import { packageRoot } from '../../package-root.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { runTask } from '../../pipeline/run-task.js';
import { renderTable } from '../../reports/table.js';
import { type CliIO, type GlobalOptions, runContext } from '../io.js';

/** What each mock agent should earn: the demo proves the checks fire where they should, and only there. */
const EXPECTED: { agent: AgentName; result: 'PASS' | 'FAIL'; failed: string[] }[] = [
  { agent: 'mock-solve', result: 'PASS', failed: [] },
  { agent: 'mock-tamper-tests', result: 'FAIL', failed: ['test-tampering'] },
  { agent: 'mock-out-of-scope', result: 'FAIL', failed: ['scope'] },
  { agent: 'mock-secret', result: 'FAIL', failed: ['secret-paths', 'secret-content'] },
  { agent: 'mock-noop', result: 'FAIL', failed: ['tests-pass'] },
];

export function demoConfigs(): string[] {
  const dir = path.join(packageRoot(), 'benchmarks');
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => path.join(dir, d.name, 'config.yaml'))
    .filter((f) => {
      try {
        return readdirSync(path.dirname(f)).includes('config.yaml');
      } catch {
        return false;
      }
    })
    .sort();
}

export async function demoCommand(
  io: CliIO,
  opts: GlobalOptions & { jobs?: number | string },
): Promise<number> {
  const configs = demoConfigs().map((f) => loadConfigOrThrow(f));
  const ctx = await beginRunSession(runContext(io, { ...opts, quiet: true }), io.err);
  const jobs = Math.max(1, Number(opts.jobs ?? Math.min(2, os.availableParallelism())) || 1);
  io.err(
    `agentguard demo: ${configs.length} tasks × ${EXPECTED.length} mock agents, ${jobs} at a time, ` +
      `results in ${ctx.outputDir}`,
  );
  const plan = configs.flatMap((cfg) => EXPECTED.map((want) => ({ cfg, want })));
  // One run that cannot be set up is that run's row; the others still run.
  const settled = await mapSettled(
    plan,
    jobs,
    async ({ cfg, want }) => {
      const { report } = await runTask(ctx, cfg, { agent: want.agent });
      const { sandbox, tracer } = report.observation;
      io.err(
        `  ${cfg.name} · ${want.agent}: ${report.result} (sandbox ${sandbox.kind}, tracer ${tracer.kind}${tracer.version ? ` · ${tracer.version}` : ''})`,
      );
      return report;
    },
    ctx.signal,
  );
  let surprises = 0;
  const rows = plan.map(({ cfg, want }, i) => {
    const outcome = settled[i] as (typeof settled)[number];
    if (outcome.status !== 'done') {
      surprises++;
      const why = outcome.status === 'failed' ? errorMessage(outcome.error) : 'not started: interrupted';
      if (outcome.status === 'failed') io.err(`  ${cfg.name} · ${want.agent}: ERROR ${why}`);
      return [cfg.name, want.agent, 'ERROR', '-', '-', '-', `NO (${why})`];
    }
    const report = outcome.value;
    const failed: string[] = report.checks.filter((c) => !c.passed).map((c) => c.id);
    const alerts = report.alerts.map((a) => a.rule);
    const asExpected =
      report.result === want.result && want.failed.every((id) => failed.includes(id)) && alerts.length === 0;
    if (!asExpected) surprises++;
    return [
      cfg.name,
      want.agent,
      report.result,
      String(report.score),
      failed.join(', ') || '-',
      alerts.join(', ') || '-',
      asExpected ? 'yes' : `NO (wanted ${want.result} ${want.failed.join(',')}, no alerts)`,
    ];
  });
  io.out(renderTable(['task', 'agent', 'verdict', 'score', 'failed checks', 'alerts', 'as expected'], rows));
  io.out(
    surprises === 0
      ? `All ${rows.length} runs gave the expected verdict. Reports: ${path.join(ctx.outputDir, 'runs')}\n` +
          `Next: agentguard run benchmarks/attacks/exfil-ssh-key/config.yaml — a skill with a malicious helper.`
      : `${surprises} of ${rows.length} runs did not give the expected verdict.`,
  );
  const stop = stopReasonOf(ctx.signal);
  if (stop?.kind === 'signal') return signalExitCode(stop.signal);
  return surprises === 0 ? 0 : 1;
}
