import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfigOrThrow } from '../../config/load.js';
import type { CommandRecord } from '../../evidence/types.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { runTask } from '../../pipeline/run-task.js';
import { type CliIO, runContext } from '../io.js';
import { withProgress } from '../phase-progress.js';

const TAIL_BYTES = 4000;

function testOutput(runDir: string, commandId: string | null): string {
  if (commandId === null) return '';
  try {
    const lines = readFileSync(path.join(runDir, 'evidence', 'commands.jsonl'), 'utf8').split('\n');
    for (const line of lines) {
      if (!line.includes(`"${commandId}"`)) continue;
      const record = JSON.parse(line) as CommandRecord;
      if (record.id !== commandId) continue;
      const text = `${record.stdout}${record.stderr ? `\n${record.stderr}` : ''}`.trimEnd();
      return text.length > TAIL_BYTES ? `…${text.slice(-TAIL_BYTES)}` : text;
    }
  } catch {
    // no evidence to show: the verdict line says why
  }
  return '';
}

/**
 * `init --check`: run the written config once, unchanged, with the agent that changes nothing, and
 * say whether the untouched repository's tests pass there (with their output when not) and whether
 * any alert was raised. A baseline that fails makes every agent run fail, so this is the config's
 * first test. Returns true when the baseline passes with no alert.
 */
export async function checkWrittenConfig(io: CliIO, configFile: string, outputDir: string): Promise<boolean> {
  io.out(`checking: agentguard run ${configFile} --agent mock-noop (skip with --no-check)`);
  const cfg = loadConfigOrThrow(configFile);
  const ctx = runContext(io, { outputDir, quiet: true });
  // The run's own progress line (the untouched repository's setup and tests can take a while).
  const progress = withProgress(await beginRunSession(ctx, io.err), { tty: io.tty, json: false });
  const { report } = await runTask(progress.ctx, cfg, { agent: 'mock-noop' }).finally(progress.stop);
  const tests = report.tests;
  const alerts = report.alerts.filter((a) => a.severity === 'error' || a.severity === 'critical');
  const outcome = report.agent.outcome;
  if (outcome.status === 'stopped') io.out(`check: the run stopped before the tests: ${outcome.reason}`);
  else if (!tests.ran) io.out(`check: the tests did not run${tests.reason ? `: ${tests.reason}` : ''}`);
  else if (tests.passed)
    io.out(`check: the untouched repository's tests pass in the sandbox (${report.run_dir})`);
  else {
    io.out(
      `check: the untouched repository's tests FAIL in the sandbox (exit ${tests.exit_code}${tests.timed_out ? ', timed out' : ''}); every agent run would fail. Their output:`,
    );
    const output = testOutput(report.run_dir, tests.command_id);
    if (output) io.out(output);
  }
  for (const a of alerts) io.out(`check: alert ${a.rule} (${a.severity}): ${a.message}`);
  return tests.ran && tests.passed && alerts.length === 0;
}
