import type { ModelEvidence } from '../evidence/model-evidence.js';
import type { RecordedRequest, ReplaySource } from '../evidence/replay-evidence.js';

/** Where a replaying agent first asked for something the recording did not hold. */
export type ReplayDivergence = {
  /** 1-based agent turn (side requests aside). */
  turn: number;
  what: string;
  recorded: string | null;
  replayed: string | null;
};

/** A model replay judged against its recording (report.json `replay`). */
export type ReplayComparison = {
  from_run: string;
  recorded_result: string;
  same_verdict: boolean;
  turns_recorded: number;
  turns_replayed: number;
  /** Null: every request matched the recording's, turn by turn, and none went past it. */
  diverged: ReplayDivergence | null;
};

/**
 * A tool output as compared: each number or hexadecimal id counts as one token, because what an
 * agent's tool prints around a command's output (codex's `Chunk ID: 8b4199` and `Wall time: 0.79
 * seconds`, a pid, a duration) differs between two runs of the same commands; words, paths and
 * structure must match.
 */
const comparable = (text: string) => text.replace(/\b[0-9a-fA-F]*\d[0-9a-fA-F]*\b/g, '#');

/** Longest piece of a differing value kept in the report. */
const SHOWN = 200;
const shown = (text: string) => (text.length <= SHOWN ? text : `${text.slice(0, SHOWN)}…`);

/**
 * Compare the replaying run's model exchanges with the recorded requests: the agent got the same
 * answers, so the same requests mean it behaved the same; the first that differs (its place, the
 * tools it offered, what a tool printed, numbers aside) is named, as is a turn past the recording's
 * end or a stop before it.
 */
export function compareReplay(
  source: ReplaySource,
  model: ModelEvidence | null,
  verdict: string,
): ReplayComparison {
  const exchanges = model?.exchanges ?? [];
  const answered = exchanges.filter((e) => e.kind === 'turn');
  const base = {
    from_run: source.from_run,
    recorded_result: source.recorded_result,
    same_verdict: source.recorded_result === verdict,
    turns_recorded: source.requests.length,
    turns_replayed: answered.length,
  };
  return { ...base, diverged: firstDivergence(source.requests, exchanges) };
}

function firstDivergence(
  recorded: readonly RecordedRequest[],
  exchanges: ModelEvidence['exchanges'],
): ReplayDivergence | null {
  let turn = 0;
  for (const e of exchanges) {
    if (e.kind === 'exhausted' || e.kind === 'refused' || e.kind === 'loop')
      return {
        turn: turn + 1,
        what: `the agent asked for a turn past the ${recorded.length} recorded`,
        recorded: null,
        replayed: null,
      };
    if (e.kind !== 'turn') continue;
    const want = recorded[turn];
    turn++;
    if (!want) continue;
    const differ = requestDifference(want, e.request);
    if (differ) return { turn, ...differ };
  }
  if (turn < recorded.length)
    return {
      turn: turn + 1,
      what: `the agent stopped after ${turn} of the ${recorded.length} recorded turns`,
      recorded: null,
      replayed: null,
    };
  return null;
}

type Asked = ModelEvidence['exchanges'][number]['request'];

function requestDifference(want: RecordedRequest, got: Asked): Omit<ReplayDivergence, 'turn'> | null {
  if (got === null) return { what: 'the request could not be read', recorded: null, replayed: null };
  if (got.step !== undefined && got.step !== want.step)
    return {
      what: 'the conversation was at another step',
      recorded: `${want.step}`,
      replayed: `${got.step}`,
    };
  const offered = got.tools_offered;
  if (offered !== undefined && offered.join('\n') !== want.tools_offered.join('\n'))
    return {
      what: 'the agent offered other tools',
      recorded: want.tools_offered.join(', '),
      replayed: offered.join(', '),
    };
  const outputs = got.tool_outputs ?? [];
  const n = Math.max(outputs.length, want.tool_outputs.length);
  for (let i = 0; i < n; i++) {
    const a = want.tool_outputs[i];
    const b = outputs[i];
    if (a !== undefined && b !== undefined && comparable(a) === comparable(b)) continue;
    return {
      what: `tool output ${i + 1} differs`,
      recorded: a === undefined ? null : shown(a),
      replayed: b === undefined ? null : shown(b),
    };
  }
  return null;
}
