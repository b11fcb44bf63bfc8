// history sits below reports and analysis in the import order, so it names the slice of a
// RunReport it indexes instead of importing the type; a RunReport is assignable to RecordableRun.

export type HistoryVerdict = 'PASS' | 'FAIL' | 'ERROR';

/** The fields of a run report that the index keeps. */
export type RecordableRun = {
  run_id: string;
  run_dir: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  result: HistoryVerdict;
  score: number;
  failed_checks: readonly string[];
  /** Security-rule alerts; the index keeps each rule id once. */
  alerts: readonly { rule: string }[];
  task: { name: string };
  agent: { name: string; model: string | null };
  /** The model's tokens and cost (report.json `usage`); absent or null without a scripted model. */
  usage?: {
    input_tokens: number;
    output_tokens: number;
    cost: number | null;
    currency: string | null;
  } | null;
  benchmark: {
    id: string | null;
    version: string | null;
    category: string | null;
    difficulty: string | null;
  };
};

/** What a history row indexes. Only single runs are recorded so far. */
export type HistoryKind = 'run' | 'suite' | 'matrix' | 'ci';

/** One row of the `runs` table. The report files stay the source of truth; this is an index. */
export type HistoryRow = {
  run_id: string;
  kind: HistoryKind;
  name: string;
  benchmark_id: string | null;
  benchmark_version: string | null;
  category: string | null;
  difficulty: string | null;
  agent: string;
  model: string | null;
  result: HistoryVerdict;
  score: number;
  failed_checks: string[];
  started_at: string;
  finished_at: string;
  duration_ms: number;
  run_dir: string;
  report_json: string;
  report_md: string;
  manifest_path: string | null;
  /** The head hash of the run's trace.jsonl (schema version 3), or null for runs sealed before it. */
  trace_head: string | null;
  /** The batch this run was an attempt of, or null (a single run, or recorded before batches were). */
  batch_id: string | null;
  /**
   * The rules of the run's alerts, each once, sorted (schema version 4). Null: not known — a run
   * recorded before version 4 whose report.json could not be read when the database migrated.
   */
  alert_rules: string[] | null;
  /** The model's tokens and cost (schema version 5); null without a scripted model, cost null without pricing. */
  input_tokens: number | null;
  output_tokens: number | null;
  cost: number | null;
  currency: string | null;
};

export type RecordedPaths = {
  report_json: string;
  report_md: string;
  manifest?: string;
  /** The head hash of the run's trace.jsonl, so a rewritten run folder no longer matches its row. */
  trace_head?: string;
};

/** Exact-match filters (check and rule: membership); all given filters must hold. Newest runs first. */
export type HistoryFilter = {
  /** Positive integer; 20 when absent. */
  limit?: number;
  kind?: HistoryKind;
  agent?: string;
  /** Matches `benchmark_id`. */
  benchmark?: string;
  result?: HistoryVerdict;
  /** Only the runs of this batch. */
  batch?: string;
  /** Matches the task's name. */
  task?: string;
  /** Runs where this check failed. */
  check?: string;
  /** Runs with an alert of this rule. */
  rule?: string;
  /** ISO timestamps: runs started at or after `since`, and before `until`. */
  since?: string;
  until?: string;
};

/** What the batch layer records about a batch: at its start, and again whenever its summary is written. */
export type RecordableBatch = {
  batch_id: string;
  kind: string;
  started_at: string;
  /** Null while it runs (or was killed before any summary). */
  finished_at: string | null;
  complete: boolean;
  attempts_planned: number;
  pass: number;
  fail: number;
  error: number;
  not_run: number;
  batch_dir: string;
  /** summary.json, once written. */
  summary_json: string | null;
  /** Child runs to link to the batch (runs.batch_id). */
  run_ids: readonly string[];
};

/** One row of the `batches` table, with how many recorded runs point to it. */
export type BatchHistoryRow = Omit<RecordableBatch, 'run_ids'> & { runs: number };

export type History = {
  /** Insert the run, or replace its row when it was recorded before. */
  /** Records (or re-records) a run; `batchId` links it to its batch, which a re-record keeps. */
  recordRun(report: RecordableRun, paths: RecordedPaths, kind?: HistoryKind, batchId?: string): void;
  listRuns(filter?: HistoryFilter): HistoryRow[];
  getRun(runId: string): HistoryRow | null;
  /** Insert the batch or update its finish, counts and summary; link the given runs to it. */
  recordBatch(batch: RecordableBatch): void;
  /** Newest first. */
  listBatches(limit?: number): BatchHistoryRow[];
  getBatch(batchId: string): BatchHistoryRow | null;
  close(): void;
};
