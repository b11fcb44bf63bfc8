import type { WireUsage } from '../../evidence/types.js';

/**
 * The scripted model endpoint's contract: the trajectory it replays, the normalised view of an
 * agent's request, and the record it keeps of every exchange (`evidence/model.jsonl`).
 */

/** A condition on the latest input of a request (tool outputs, else the latest user text). */
export type Condition = {
  contains?: string;
  not_contains?: string;
  regex?: RegExp;
};

/** One tool call the scripted model makes. `shell` is mapped to whatever shell tool the agent offers. */
export type ScriptedCall =
  | { kind: 'shell'; command: string }
  | { kind: 'tool'; name: string; args: Record<string, unknown> };

/** What the model says in one turn: text, tool calls, or both (text alone is a final answer). */
export type TurnBody = {
  text: string | null;
  calls: ScriptedCall[];
  /** Id of the turn to continue with; null continues with the next turn in the file. */
  next: string | null;
};

export type Alternative = TurnBody & { condition: Condition | null };

export type Turn = {
  /** 1-based position in the file, used in records and messages. */
  index: number;
  id: string | null;
} & ({ kind: 'body'; body: TurnBody } | { kind: 'when'; alternatives: Alternative[] });

/** Which requests are answered outside the script (title generation, summaries, probes). */
export type SideRequestMode = 'no-tools' | 'never';

export type Trajectory = {
  /** Absolute path of the file it came from, or a label for inline trajectories. */
  source: string;
  name: string;
  turns: Turn[];
  sideRequests: SideRequestMode;
  sideReply: string;
  /** How many times the same request is answered before the server refuses it. */
  loopLimit: number;
  /** Upper bound on answered turns, so a `next` cycle cannot run forever. */
  maxTurns: number;
};

export type ApiKind = 'responses' | 'chat' | 'anthropic' | 'gemini';

/** A tool the agent offers in its request, with its parameter schema when given. */
export type OfferedTool = { name: string; schema: Record<string, unknown> | null };

/** The parts of an agent's request the player needs, the same whichever API carried it. */
export type ConversationView = {
  api: ApiKind;
  model: string | null;
  stream: boolean;
  /** Items (Responses API) or messages in the request, as sent. */
  messageCount: number;
  /** Model turns already in the conversation: runs of consecutive assistant items. */
  step: number;
  /** Outputs of the tool calls answered since the last model turn. */
  toolOutputs: string[];
  /** Text of the latest user message, for requests that carry no tool output. */
  latestUserText: string;
  tools: OfferedTool[];
};

/** A tool call as sent to the agent, after mapping to the agent's own tool. */
export type ToolCallOut = { id: string; name: string; arguments: string };

/** What the server answers, before it is rendered in the request's API. */
export type Reply =
  | { kind: 'message'; text: string; calls: ToolCallOut[] }
  | { kind: 'error'; status: number; message: string };

export type RecordKind =
  | 'turn'
  | 'retry'
  | 'side'
  | 'exhausted'
  | 'refused'
  | 'loop'
  | 'error'
  | 'probe'
  | 'not-found'
  /** Through the relay: forwarded to the provider, refused for the run's budget. */
  | 'relayed'
  | 'budget';

/** One request to the scripted endpoint and what it answered; one line of `evidence/model.jsonl`. */
export type ModelRecord = {
  seq: number;
  /** Milliseconds since the server's time origin. */
  ts: number;
  /** When the request arrived, in Unix epoch milliseconds: joins the exchange with the syscall evidence. */
  at: number;
  duration_ms: number;
  api: ApiKind | 'models' | 'count_tokens' | 'other';
  method: string;
  path: string;
  status: number;
  kind: RecordKind;
  /** 1-based trajectory turn answered (also for retries), else null. */
  turn: number | null;
  turn_id: string | null;
  /** 1-based alternative of a `when` turn that matched. */
  branch: number | null;
  request: {
    model: string | null;
    stream: boolean;
    messages: number;
    step: number;
    tools_offered: string[];
    /** Tool outputs seen in the request, each cut at a bound. */
    tool_outputs: string[];
    input_tokens: number;
  } | null;
  response: {
    text: string;
    tool_calls: { name: string; arguments: string }[];
    output_tokens: number;
    stop: 'tool_use' | 'end_turn' | 'error';
    error?: string;
  };
  /** Through the relay: the provider's usage as its answer stated it (exact), null when it stated none. */
  usage?: WireUsage | null;
  /** Through the relay: the status the provider answered (absent when it was never asked). */
  provider_status?: number;
};
