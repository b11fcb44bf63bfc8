import { createHash } from 'node:crypto';
import type { Condition, ConversationView, Trajectory, Turn, TurnBody } from './types.js';

export const EXHAUSTED_TEXT = '(trajectory exhausted)';

/** What to answer one request, decided from the trajectory and what was answered before. */
export type Decision =
  | { kind: 'turn' | 'retry'; turn: Turn; branch: number | null; body: TurnBody }
  | { kind: 'side'; text: string }
  | { kind: 'exhausted'; text: string; turn: Turn | null }
  | { kind: 'refused' | 'loop'; message: string };

type Answered = { count: number; decision: Decision };

/**
 * Replays a trajectory against an agent's requests.
 *
 * A request's place in the conversation is its key: the number of model turns already in its
 * history plus a digest of its latest input (tool outputs, else the latest user text). A key seen
 * before is a retry and gets the same answer; a new key advances to the next turn (or the one
 * `next` names). Requests that offer no tools are side requests (titles, summaries) and get a short
 * text without advancing. The same key more than `loopLimit` times is an agent loop and is refused.
 */
export class ScriptPlayer {
  private readonly answered = new Map<string, Answered>();
  private pointer = 0;
  private turnsAnswered = 0;
  private exhausted = false;

  constructor(
    private readonly trajectory: Trajectory,
    private readonly loopLimit: number = trajectory.loopLimit,
  ) {}

  decide(view: ConversationView): Decision {
    const side = this.trajectory.sideRequests === 'no-tools' && view.tools.length === 0;
    const input = latestInput(view);
    const key = `${side ? 'side' : 'agent'}:${view.step}:${digest(input)}`;
    const seen = this.answered.get(key);
    if (seen) {
      seen.count++;
      if (seen.count > this.loopLimit) {
        return {
          kind: 'loop',
          message: `agentguard model-server: the agent sent the same request ${seen.count} times (limit ${this.loopLimit}); it is looping, so the scripted model stops answering`,
        };
      }
      if (seen.decision.kind === 'turn') return { ...seen.decision, kind: 'retry' };
      if (seen.decision.kind === 'side') return seen.decision;
      return this.refuse();
    }
    const decision = side ? { kind: 'side' as const, text: this.trajectory.sideReply } : this.advance(input);
    this.answered.set(key, { count: 1, decision });
    return decision;
  }

  private advance(input: string): Decision {
    if (this.exhausted) return this.refuse();
    const turn = this.trajectory.turns[this.pointer];
    if (!turn || this.turnsAnswered >= this.trajectory.maxTurns) {
      this.exhausted = true;
      const limit = turn ? ` (max_turns ${this.trajectory.maxTurns} reached)` : '';
      return { kind: 'exhausted', text: `${EXHAUSTED_TEXT}${limit}`, turn: null };
    }
    let body: TurnBody | undefined;
    let branch: number | null = null;
    if (turn.kind === 'body') body = turn.body;
    else {
      const i = turn.alternatives.findIndex((a) => a.condition === null || matches(a.condition, input));
      if (i >= 0) {
        body = turn.alternatives[i];
        branch = i + 1;
      }
    }
    if (!body) {
      this.exhausted = true;
      return {
        kind: 'exhausted',
        text: `${EXHAUSTED_TEXT}: no alternative of turn ${turn.index} matched the latest tool output`,
        turn,
      };
    }
    this.turnsAnswered++;
    const next = body.next;
    this.pointer = next === null ? this.pointer + 1 : this.trajectory.turns.findIndex((t) => t.id === next);
    return { kind: 'turn', turn, branch, body };
  }

  private refuse(): Decision {
    return {
      kind: 'refused',
      message: `agentguard model-server: the trajectory ${this.trajectory.name} is exhausted and already said so; no more turns are scripted`,
    };
  }
}

/** Tool outputs since the last model turn, else the latest user text: what `when` conditions test. */
export function latestInput(view: ConversationView): string {
  return view.toolOutputs.length > 0 ? view.toolOutputs.join('\n') : view.latestUserText;
}

export function matches(condition: Condition, input: string): boolean {
  if (condition.contains !== undefined && !input.includes(condition.contains)) return false;
  if (condition.not_contains !== undefined && input.includes(condition.not_contains)) return false;
  if (condition.regex !== undefined) {
    condition.regex.lastIndex = 0;
    if (!condition.regex.test(input)) return false;
  }
  return true;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
