import type { ResolvedConfig } from '../config/schema.js';
import type { AgentEvidence, CanaryEvidence, SetupEvidence } from '../evidence/bundle-types.js';
import type { ModelEvidence } from '../evidence/model-evidence.js';
import type { ReplaySource } from '../evidence/replay-evidence.js';
import type {
  CommandRecord,
  DiffEvidence,
  NetworkRecord,
  Observation,
  ProtectedStateEvidence,
  SysEvent,
  TestEvidence,
  TimelineEvent,
  WorkspaceEvidence,
} from '../evidence/types.js';

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
  /** What the test command's process tree did (observed like the agent, judged by the same rules). */
  test_syscalls: SysEvent[];
  network: NetworkRecord[];
  timeline: TimelineEvent[];
  observation: Observation;
  /** The fake credentials planted in the agent's HOME, and that HOME as the agent saw it (null: none planted). */
  canaries: CanaryEvidence | null;
  /** The protected files before and after the agent (absent: not recorded, as in runs before the backstop). */
  protected_state?: ProtectedStateEvidence;
  /** The task's skill files as the agent saw them (empty when the task ships no skills). */
  skills: string[];
  /** What `setup.dependencies` installed before the agent (null: the config has none). */
  setup: SetupEvidence | null;
  /** What the scripted model was asked and answered (null: no scripted model in this run). */
  model: ModelEvidence | null;
  /** A model replay's recording (absent: the run's model was not replayed from another run). */
  replay?: ReplaySource;
  started_at: string;
  finished_at: string;
  /** Why the run was ended before it could finish (interrupt, run time limit); its verdict is ERROR. */
  stopped?: string;
};
