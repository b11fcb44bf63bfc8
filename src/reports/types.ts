import type { ReplayComparison } from '../analysis/replay-compare.js';
import type { Alert } from '../analysis/rules/types.js';
import type { TrajectoryJoin } from '../analysis/trajectory/join.js';
import type { CheckResult, ScoreResult, Verdict } from '../analysis/types.js';
import type { RunUsage } from '../analysis/usage.js';
import type { CheckId } from '../config/schema.js';
import type { AgentEvidence, SetupEvidence } from '../evidence/bundle-types.js';
import type { CommandRecord, DiffFile, Observation, TestEvidence, TimelineEvent } from '../evidence/types.js';
import type { ReportHunks } from './diff-hunks.js';
import type { ReportWhy } from './why.js';

export const RUN_REPORT_SCHEMA_VERSION = 1;

/**
 * The contract of `report.json`. Scripts outside the project read it, so fields are only ever
 * added (with a `schema_version` bump when a meaning changes), never renamed or removed.
 *
 * To add a section (e.g. `alerts`): add the field here, fill it in `buildRunReport`, add its key to
 * `RUN_REPORT_KEY_ORDER` (the compiler insists) and, if people should see it, a section in the
 * report view (`view/report-view.ts`), which report.md and report.html both render. Readers of the
 * file check it against `report-schema.ts`.
 */
export type RunReport = {
  schema_version: typeof RUN_REPORT_SCHEMA_VERSION;
  result: Verdict;
  /** 0-100. */
  score: number;
  run_id: string;
  run_dir: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  task: ReportTask;
  agent: ReportAgent;
  benchmark: ReportBenchmark;
  checks: CheckResult[];
  failed_checks: CheckId[];
  /** Security-rule alerts: rule, class, severity, syscall, path or host, and the acting process chain. */
  alerts: Alert[];
  deductions: ScoreResult['deductions'];
  diff: ReportDiff;
  commands: ReportCommand[];
  /** What `setup.dependencies` installed before the agent (null: the config has none). */
  setup: SetupEvidence | null;
  tests: TestEvidence;
  timeline: TimelineEvent[];
  observation: Observation;
  /** Set when the agent ran without isolation; every report says so. */
  isolation_warning: string | null;
  /** Why the run did not pass, most decisive first, with the failing commands' last lines (null: it passed). */
  why: ReportWhy | null;
  activity: ActivitySummary;
  /** Tokens the model read and wrote, and their cost at the config's prices (null: no scripted model). */
  usage: RunUsage | null;
  /** The model's tool calls joined with what their processes did (null: no scripted model in the run). */
  trajectory: TrajectoryJoin | null;
  /** A model replay judged against its recording (null: the run was not a replay); absent in reports before it. */
  replay?: ReplayComparison | null;
  /** Files of the run directory, relative to it, sorted. */
  artifacts: string[];
};

export type ReportTask = {
  name: string;
  /** The prompt itself is not in the report (it may be long or private); its hash identifies it. */
  prompt_sha256: string;
  prompt_file?: string;
  description?: string;
};

export type ReportAgent = Pick<
  AgentEvidence,
  'adapter' | 'name' | 'version' | 'model' | 'metadata' | 'outcome' | 'guard'
>;

export type ReportBenchmark = {
  id: string | null;
  version: string | null;
  category: string | null;
  difficulty: string | null;
  tags: string[];
};

export type ReportDiff = {
  baseline_sha: string;
  files: DiffFile[];
  changed_files: number;
  added: number;
  deleted: number;
  patch_truncated: boolean;
  ignored_files: string[];
  ignored_files_truncated: boolean;
  workspace_git_changed: boolean;
  /** Each changed file's hunks, bounded (diff-hunks.ts); absent in reports written before them. */
  hunks?: ReportHunks[];
  /** Files whose hunks did not fit in the page's bound at all. */
  hunks_omitted_files?: number;
};

/**
 * A command without its output. `argv` is the display argv: the raw one may carry the prompt or
 * secrets, so reports never see it.
 */
export type ReportCommand = Pick<
  CommandRecord,
  | 'id'
  | 'role'
  | 'cwd'
  | 'started_ms'
  | 'duration_ms'
  | 'exit_code'
  | 'signal'
  | 'timed_out'
  | 'blocked'
  | 'spawn_error'
  | 'stdout_truncated'
  | 'stderr_truncated'
  | 'stdout_bytes'
  | 'stderr_bytes'
  | 'policy_matches'
> & { argv: string[] };

/** What the syscall and proxy evidence says the agent's processes did, counted and bounded. */
export type ActivitySummary = {
  /** A syscall tracer ran; when false the syscall-derived lists are empty, not "nothing happened". */
  syscall_evidence: boolean;
  /** Distinct processes seen acting in the syscall evidence. */
  processes: number;
  execs: { command: string; count: number }[];
  /** Absolute paths. Shared libraries, locale data and harmless devices are counted in `runtime_files` instead. */
  files_read_outside_workspace: FileActivity[];
  files_written_outside_workspace: FileActivity[];
  /** Paths relative to the workspace root. */
  files_written_inside_workspace: FileActivity[];
  /** Successful opens of runtime files (loader, libraries, locale, /dev/null...) left out of the lists. */
  runtime_files: number;
  /** Proxy records (allowed/denied) and connect() calls (observed), grouped by destination. */
  hosts: HostActivity[];
  /** Entries cut from each list by the bound. */
  omitted: Record<ActivityListName, number>;
};

export type ActivityListName =
  | 'execs'
  | 'files_read_outside_workspace'
  | 'files_written_outside_workspace'
  | 'files_written_inside_workspace'
  | 'hosts';

export type FileActivity = { path: string; count: number };

export type HostActivity = {
  host: string;
  port: number | null;
  count: number;
  /** `observed` for connect() calls, which the proxy did not judge. */
  decision: 'allowed' | 'denied' | 'observed';
  source: 'proxy' | 'connect';
};

/** Top-level key order of `report.json`; `satisfies` plus the check below keep it complete. */
export const RUN_REPORT_KEY_ORDER = [
  'schema_version',
  'result',
  'score',
  'run_id',
  'run_dir',
  'started_at',
  'finished_at',
  'duration_ms',
  'task',
  'agent',
  'benchmark',
  'isolation_warning',
  'why',
  'failed_checks',
  'alerts',
  'deductions',
  'checks',
  'tests',
  'diff',
  'commands',
  'setup',
  'activity',
  'usage',
  'trajectory',
  'replay',
  'timeline',
  'observation',
  'artifacts',
] as const satisfies readonly (keyof RunReport)[];

type MissingKeys = Exclude<keyof RunReport, (typeof RUN_REPORT_KEY_ORDER)[number]>;
/** Fails to compile when a RunReport field is missing from RUN_REPORT_KEY_ORDER. */
export const RUN_REPORT_KEYS_COMPLETE: [MissingKeys] extends [never] ? true : MissingKeys = true;
