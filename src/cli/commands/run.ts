import { AGENT_NAMES, isAgentName } from '../../agents/index.js';
import { loadConfigOrThrow } from '../../config/load.js';
import { ConfigError } from '../../errors.js';
import { runTask } from '../../pipeline/run-task.js';
import { renderJson } from '../../reports/json.js';
import type { RunReport } from '../../reports/types.js';
import { type CliIO, type GlobalOptions, runContext } from '../io.js';

export type RunCommandOptions = GlobalOptions & { agent?: string; json?: boolean };

export async function runCommand(io: CliIO, configFile: string, opts: RunCommandOptions): Promise<number> {
  const cfg = loadConfigOrThrow(configFile);
  const agent = opts.agent ?? (cfg.agent_command ? 'agent-command' : undefined);
  if (agent === undefined) {
    throw new ConfigError(
      `${cfg.config_path}: no agent to run: the config has no agent_command. ` +
        `Fix: add agent_command, or pass --agent with one of ${AGENT_NAMES.join(', ')}.`,
    );
  }
  if (!isAgentName(agent)) {
    throw new ConfigError(
      `--agent '${agent}' is not a known agent. Fix: use one of ${AGENT_NAMES.join(', ')}.`,
    );
  }
  const ctx = runContext(io, { ...opts, quiet: opts.quiet || opts.json });
  const result = await runTask(ctx, cfg, { agent });
  if (opts.json) io.out(renderJson(result.report));
  else io.out(summarise(result.report, result.reportMd));
  return result.exitCode;
}

export function summarise(report: RunReport, reportMd: string): string {
  const lines = [`${report.result}  score ${report.score}  ${report.task.name} · ${report.agent.name}`];
  for (const c of report.checks.filter((c) => !c.passed))
    lines.push(`  ✗ ${c.id} (${c.severity}): ${c.message}`);
  if (report.isolation_warning) lines.push(`  ! ${report.isolation_warning}`);
  lines.push(`  report: ${reportMd}`);
  return lines.join('\n');
}
