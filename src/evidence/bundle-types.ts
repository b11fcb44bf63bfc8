import type { ResolvedConfig } from '../config/schema.js';
import type {
  CommandRecord,
  DiffEvidence,
  NetworkRecord,
  Observation,
  SysEvent,
  TestEvidence,
  TimelineEvent,
  WorkspaceEvidence,
} from './types.js';

/** How the agent's own process ended. A crash or timeout is data, not an exception. */
export type AgentOutcome =
  | { status: 'completed'; exit_code: 0 }
  | { status: 'failed'; exit_code: number | null; signal: string | null }
  | { status: 'timed-out'; timeout_seconds: number }
  | { status: 'blocked'; reason: string }
  | { status: 'errored'; error: string }
  /** Ended from outside while it ran: the live guard, an interrupt, the run's time limit. */
  | { status: 'stopped'; by: 'guard' | 'interrupt' | 'run-timeout'; reason: string };

export type AgentEvidence = {
  adapter: string;
  name: string;
  version: string | null;
  model: string | null;
  metadata: Record<string, string | number | boolean | null>;
  outcome: AgentOutcome;
  command_id: string | null;
};

export type CanaryEvidence = {
  home: string;
  canaries: { kind: string; path: string; token: string }[];
};

/** Everything the analyse half may read. Loaded from a run directory by `readBundle`. */
export type EvidenceBundle = {
  run_id: string;
  run_dir: string;
  config: ResolvedConfig;
  workspace: WorkspaceEvidence;
  agent: AgentEvidence;
  commands: CommandRecord[];
  tests: TestEvidence;
  diff: DiffEvidence;
  /** Unified diff of the agent's changes against the baseline (cut at a byte limit; see diff.patch_truncated). */
  patch: string;
  syscalls: SysEvent[];
  network: NetworkRecord[];
  timeline: TimelineEvent[];
  observation: Observation;
  /** The fake credentials planted in the agent's HOME, and that HOME as the agent saw it (null: none planted). */
  canaries: CanaryEvidence | null;
  /** The task's skill files as the agent saw them (empty when the task ships no skills). */
  skills: string[];
  started_at: string;
  finished_at: string;
  /** Why the run was ended before it could finish (interrupt, run time limit); its verdict is ERROR. */
  stopped?: string;
};
