import { type AgentName, isAgentName } from '../../agents/index.js';
import { loadConfigOrThrow } from '../../config/load.js';
import { ConfigError } from '../../errors.js';
import { OVERHEAD_MODES, type OverheadMode } from '../../overhead/modes.js';
import { overheadDir, runOverhead } from '../../overhead/run-overhead.js';
import { renderOverheadTable } from '../../overhead/summarise.js';
import { wholeNumber } from '../flags.js';
import { type CliIO, outputDir, runContext } from '../io.js';

type OverheadFlags = {
  trials?: unknown;
  tracers?: unknown;
  agent?: unknown;
  json?: boolean;
  outputDir?: string;
};

const TRACED = OVERHEAD_MODES.filter((m) => m !== 'off');

export async function benchmarkOverheadCommand(
  io: CliIO,
  config: string,
  flags: OverheadFlags,
): Promise<number> {
  const trials = wholeNumber('--trials', flags.trials, { fallback: 3, min: 1, max: 50 });
  const modes = parseTracers(flags.tracers);
  const cfg = loadConfigOrThrow(config);
  const agent = pickAgent(flags.agent, cfg.agent_command !== undefined, cfg.agent_profile !== undefined);
  const out = outputDir(flags);
  const ctx = runContext(io, flags);
  const reportDir = overheadDir(out, new Date());
  const log = flags.json ? () => {} : (line: string) => io.err(line);
  const report = await runOverhead({
    ctx: flags.json ? { ...ctx, log } : ctx,
    reportDir,
    cfg,
    agent,
    trials,
    modes,
    log,
  });
  if (flags.json) io.out(JSON.stringify(report, null, 2));
  else {
    io.out(renderOverheadTable(report));
    io.out(`report: ${reportDir}/report.md`);
  }
  const failed = report.samples.filter((s) => s.status === 'failed').length;
  return failed > 0 ? 1 : 0;
}

function pickAgent(flag: unknown, hasCommand: boolean, hasProfile: boolean): AgentName {
  if (flag === undefined) return hasCommand ? 'agent-command' : hasProfile ? 'agent-profile' : 'mock-solve';
  const name = String(flag);
  if (!isAgentName(name))
    throw new ConfigError(`--agent '${name}' is not an agent adapter. Fix: see 'agentguard run --help'.`);
  return name;
}

export function parseTracers(value: unknown): OverheadMode[] {
  if (value === undefined) return [...TRACED];
  const names = String(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.find((n) => !(OVERHEAD_MODES as readonly string[]).includes(n));
  if (names.length === 0 || bad !== undefined)
    throw new ConfigError(
      `--tracers: ${bad ? `unknown tracer '${bad}'` : 'no tracer given'}. Fix: choose from ${TRACED.join(', ')} (off always runs).`,
    );
  return OVERHEAD_MODES.filter((m) => m !== 'off' && names.includes(m));
}
