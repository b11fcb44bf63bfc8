import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { AgentName } from '../../agents/index.js';
import { loadConfigOrThrow } from '../../config/load.js';
import { packageRoot } from '../../package-root.js';
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

export async function demoCommand(io: CliIO, opts: GlobalOptions): Promise<number> {
  const ctx = runContext(io, { ...opts, quiet: true });
  const rows: string[][] = [];
  let surprises = 0;
  const configs = demoConfigs().map((f) => loadConfigOrThrow(f));
  io.err(
    `agentguard demo: ${configs.length} tasks × ${EXPECTED.length} mock agents, results in ${ctx.outputDir}`,
  );
  for (const cfg of configs) {
    for (const want of EXPECTED) {
      const { report } = await runTask(ctx, cfg, { agent: want.agent });
      const failed: string[] = report.checks.filter((c) => !c.passed).map((c) => c.id);
      const asExpected = report.result === want.result && want.failed.every((id) => failed.includes(id));
      if (!asExpected) surprises++;
      rows.push([
        cfg.name,
        want.agent,
        report.result,
        String(report.score),
        failed.join(', ') || '-',
        asExpected ? 'yes' : `NO (wanted ${want.result} ${want.failed.join(',')})`,
      ]);
      io.err(`  ${cfg.name} · ${want.agent}: ${report.result}`);
    }
  }
  io.out(renderTable(['task', 'agent', 'verdict', 'score', 'failed checks', 'as expected'], rows));
  io.out(
    surprises === 0
      ? `All ${rows.length} runs gave the expected verdict. Reports: ${path.join(ctx.outputDir, 'runs')}`
      : `${surprises} of ${rows.length} runs did not give the expected verdict.`,
  );
  return surprises === 0 ? 0 : 1;
}
