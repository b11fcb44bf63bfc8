import path from 'node:path';
import { DEFAULT_LOOP_LIMIT, DEFAULT_SIDE_REPLY } from '../agents/model-server/trajectory.js';
import type { ScriptedCall, Trajectory, Turn } from '../agents/model-server/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError, InputError } from '../errors.js';
import { runPath } from '../evidence/layout.js';
import { type ModelExchange, readModelEvidence } from '../evidence/model-evidence.js';
import { readJson } from '../evidence/read.js';
import type { RecordedRequest, ReplaySource } from '../evidence/replay-evidence.js';
import { verifyRun } from '../provenance/verify.js';
import { RunReportFileSchema } from '../reports/report-schema.js';

/** A recorded run made ready to replay: the answers to serve, and what the analysis compares with. */
export type ModelReplay = { source: ReplaySource; trajectory: Trajectory };

const FIX = 'pass the folder of a finished run whose agent ran through model_relay or model_script';

/**
 * Read a finished run for `run --replay`: it must verify against its seal (a recording is trusted
 * only as the run left it), be of the same task, and hold the model's exchanges. Each agent request
 * it answered becomes one scripted turn with the exact text and tool calls the agent received; a
 * request the agent repeated (a retry) is one turn, as the scripted model answers a retry the same.
 */
export function loadModelReplay(runDir: string, cfg: ResolvedConfig): ModelReplay {
  const dir = path.resolve(runDir);
  const v = verifyRun(dir);
  if (v.status !== 'intact')
    throw new InputError(`--replay ${dir}: the run does not verify (${v.reason}). Fix: ${FIX}.`);
  const report = readJson(path.join(dir, 'report.json'), FIX, RunReportFileSchema, dir);
  if (report.task.name !== cfg.name)
    throw new InputError(
      `--replay ${dir}: the recording is of task '${report.task.name}', the config is '${cfg.name}'. Fix: replay it with the config it ran.`,
    );
  const model = readModelEvidence(runPath(dir, 'model'), dir);
  if (model === null || model.exchanges.length === 0)
    throw new InputError(
      `--replay ${dir}: the run has no model exchanges (evidence/model.jsonl). Fix: ${FIX}.`,
    );
  if (model.problem) throw new InputError(`--replay ${dir}: ${model.problem}. Fix: ${FIX}.`);
  const requests: RecordedRequest[] = [];
  const turns: Turn[] = [];
  let side: string | null = null;
  for (const e of model.exchanges) {
    const asked = agentRequest(e);
    if (asked === 'side') side ??= e.response.text;
    if (asked === null || asked === 'side') continue;
    const last = requests.at(-1);
    if (last && last.step === asked.step && last.tool_outputs.join('\0') === asked.tool_outputs.join('\0'))
      continue;
    requests.push(asked);
    turns.push({
      index: turns.length + 1,
      id: null,
      kind: 'body',
      body: { text: e.response.text === '' ? null : e.response.text, calls: callsOf(e, dir), next: null },
    });
  }
  if (turns.length === 0)
    throw new InputError(`--replay ${dir}: no answered agent request in evidence/model.jsonl. Fix: ${FIX}.`);
  const source: ReplaySource = {
    from_run: report.run_id,
    from_dir: dir,
    task: report.task.name,
    recorded_result: report.result,
    requests,
  };
  const trajectory: Trajectory = {
    source: runPath(dir, 'model'),
    name: `replay of ${report.run_id}`,
    turns,
    sideRequests: 'no-tools',
    sideReply: side ?? DEFAULT_SIDE_REPLY,
    loopLimit: DEFAULT_LOOP_LIMIT,
    maxTurns: turns.length,
  };
  return { source, trajectory };
}

/**
 * The config a replay runs: the recorded model's answers in place of the relay or the script, so
 * nothing leaves the host and no key is needed.
 */
export function replayConfig(cfg: ResolvedConfig, replay: ModelReplay): ResolvedConfig {
  if (!cfg.agent_profile || (!cfg.model_relay && !cfg.model_script))
    throw new ConfigError(
      `${cfg.config_path}: --replay serves recorded model answers to an agent_profile that runs through model_relay or model_script; this config has ${cfg.agent_profile ? 'neither' : 'no agent_profile'}. Fix: replay with the config the recorded run used.`,
    );
  const { model_relay: _relay, ...rest } = cfg;
  return { ...rest, model_script: replay.trajectory.source };
}

/** An answered request of the agent's own (tools offered), 'side' for one without tools, else null. */
function agentRequest(e: ModelExchange): RecordedRequest | 'side' | null {
  const answered = (e.kind === 'relayed' || e.kind === 'turn') && e.response.stop !== 'error';
  if (!answered || e.request === null) return null;
  const offered = e.request.tools_offered ?? [];
  if (offered.length === 0) return 'side';
  return { step: e.request.step ?? 0, tools_offered: offered, tool_outputs: e.request.tool_outputs ?? [] };
}

function callsOf(e: ModelExchange, dir: string): ScriptedCall[] {
  return e.response.tool_calls.map((c) => {
    let args: unknown;
    try {
      args = JSON.parse(c.arguments);
    } catch {
      args = null;
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new InputError(
        `--replay ${dir}: exchange ${e.seq}'s call of ${c.name} has arguments that are not a JSON object, which the replay cannot give back. Fix: ${FIX}.`,
      );
    return { kind: 'tool', name: c.name, args: args as Record<string, unknown> };
  });
}
