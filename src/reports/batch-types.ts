import type { AgentName } from '../agents/index.js';

/** Who runs an attempt: a built-in adapter, an inline command, or an agent profile. */
export type AgentSpec =
  | { name: string; kind: 'builtin'; adapter: AgentName }
  | { name: string; kind: 'command'; argv: string[] }
  | { name: string; kind: 'profile'; profile: string };

/** One (agent, task, trial) of a batch; `index` is its place in input order. */
export type Attempt = {
  index: number;
  agent: AgentSpec;
  /** The task's benchmark id, or its config name. */
  task: string;
  config_path: string;
  /** 1-based. */
  trial: number;
};

/** `trials`: `run --trials N`, one agent × one task × N trials. */
export type BatchKind = 'benchmark' | 'suite' | 'matrix' | 'trials';

/** batch.json: everything needed to resume the batch, and the hashes that say it is still the same batch. */
export type BatchPlan = {
  schema_version: 1;
  batch_id: string;
  kind: BatchKind;
  created_at: string;
  /** The suite or matrix file, when there is one. */
  source: { file: string; sha256: string } | null;
  options: {
    sandbox?: string;
    tracer?: string;
    guard?: string;
    /** --allow-below-floor: configs from a pack may run below the isolation floor. */
    allow_below_floor?: boolean;
    workers: number;
    fail_fast: boolean;
  };
  attempts: Attempt[];
  /** sha256 of every task config file and of every repo template tree, by absolute path. */
  hashes: { configs: Record<string, string>; repos: Record<string, string> };
};

export type RowResult = 'PASS' | 'FAIL' | 'ERROR';

/** One attempt's outcome, as written to the checkpoint and summary.json. */
export type Row = {
  index: number;
  agent: string;
  task: string;
  trial: number;
  run_id: string | null;
  run_dir: string | null;
  result: RowResult;
  score: number | null;
  tests_passed: boolean | null;
  failed_checks: string[];
  /** Rule ids of the run's alerts, one entry per alert. */
  alerts: string[];
  benchmark_version: string | null;
  /** The model's tokens and their cost (report.json `usage`); absent when the run had neither a scripted model nor a provider answer the proxy could read. */
  usage?: RowUsage;
  elapsed_ms: number;
  /** Why the attempt is ERROR: setup failure or interrupt. */
  reason?: string;
};

export type RowUsage = {
  input_tokens: number;
  output_tokens: number;
  cost: number | null;
  currency: string | null;
};

/** Tokens of a group's attempts (ERROR ones too: they were billed), and the cost where prices were given. */
export type GroupUsage = {
  input_tokens: number;
  output_tokens: number;
  /** Sum over the attempts that have a cost; null when none has (no pricing in the config). */
  cost_total: number | null;
  /** Per attempt with a cost. */
  cost_mean: number | null;
  currency: string | null;
};

/** Statistics of one (agent, task) cell or one agent over all its tasks (`task: null`). */
export type Group = {
  agent: string;
  task: string | null;
  attempts: number;
  /** Attempts that ended ERROR (setup failed, interrupted): not trials of the agent, counted apart. */
  errors: number;
  /** PASS + FAIL attempts: the sample the statistics are over. */
  trials: number;
  passes: number;
  pass_rate: number | null;
  wilson_low: number | null;
  wilson_high: number | null;
  pass_at_k: Record<string, number>;
  pass_pow_k: Record<string, number>;
  score_mean: number | null;
  score_stddev: number | null;
  /** Tests passed. */
  functional_successes: number;
  /** Verdict PASS. */
  policy_successes: number;
  /** Tests passed but the run FAILed on policy checks or alerts: the dangerous kind of success. */
  unsafe_functional_successes: number;
  alerts_by_rule: Record<string, number>;
  /** Model tokens and cost; null when no attempt had any (scripted model or readable provider answers). */
  usage: GroupUsage | null;
  /** Similarity of the group's runs (star graphs), when it has two or more. */
  similarity: GroupSimilarity | null;
};

export type GroupSimilarity = {
  runs: number;
  /** Mean pairwise overall similarity. */
  mean_similarity: number;
  outlier_run_id: string | null;
  /** The compared runs, in attempt order: the heat map's labels. Empty when it could not be computed. */
  run_ids: string[];
  /**
   * Pairwise overall similarity, `matrix[i][j]` for runs i and j (symmetric, diagonal 1); null
   * where the two runs had no resource of any compared type. Bounded: see SIMILARITY_MATRIX_LIMIT.
   */
  matrix: (number | null)[][];
  /** Why similarity could not be computed, if it could not. */
  note?: string;
};

export type BatchSummary = {
  schema_version: 1;
  batch_id: string;
  kind: BatchKind;
  created_at: string;
  finished_at: string;
  /** False when attempts are missing (interrupted or fail-fast): resume fills them in. */
  complete: boolean;
  attempts_planned: number;
  totals: { pass: number; fail: number; error: number; not_run: number };
  rows: Row[];
  groups: Group[];
};
