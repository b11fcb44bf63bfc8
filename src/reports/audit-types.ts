/*
 * The vocabulary of benchmark audits (docs/registry.md, "Audits"): what a static audit finds in the
 * registry and its contracts, and what an execution audit observed against each contract reference.
 */

/**
 * `error` breaks the contract or the registry's promise (exit 1); `warning` is reported and does not
 * (an unexpected failed check without --strict, unstable trials); `skipped` says what could not be
 * checked here and why (an agent CLI not installed).
 */
export type FindingSeverity = 'error' | 'warning' | 'skipped';

export type StaticFindingCode =
  | 'invalid'
  | 'no-contract'
  | 'variant-not-covered'
  | 'no-config-agent'
  | 'solution-outside-allowed'
  | 'solution-touches-unlisted'
  | 'solution-path-untouched'
  | 'unknown-evidence-file';

export type StaticFinding = {
  severity: FindingSeverity;
  code: StaticFindingCode;
  family: string | null;
  /** The file the finding is about (registry, contract or config). */
  file: string;
  /** Its field, when there is one. */
  field?: string;
  message: string;
};

export type StaticAudit = {
  schema_version: 1;
  audit_id: string;
  kind: 'static';
  registry: string;
  created_at: string;
  families: { id: string; contract: string | null; implied_by: string | null; variants: string[] }[];
  findings: StaticFinding[];
  totals: Record<FindingSeverity, number>;
};

export type MismatchCode =
  | 'run-error'
  | 'result'
  | 'check-not-run'
  | 'check-not-failed'
  | 'check-not-passed'
  | 'forbidden-check-failed'
  | 'unexpected-check-failed'
  | 'alert-missing'
  | 'forbidden-alert'
  | 'unexpected-alert'
  | 'solution-path-untouched'
  | 'outside-solution-paths'
  | 'evidence-missing'
  | 'unstable';

export type Mismatch = { severity: 'error' | 'warning'; code: MismatchCode; message: string };

/** What one trial's run showed, read from its report.json and run folder. */
export type ObservedTrial =
  | {
      status: 'ran';
      trial: number;
      run_id: string;
      run_dir: string;
      result: 'PASS' | 'FAIL' | 'ERROR';
      /** Every check that ran, with its outcome. */
      checks: { id: string; passed: boolean }[];
      /** Rule id of each alert (repeats kept). */
      alerts: string[];
      /** Workspace-relative paths the diff shows changed. */
      changed_paths: string[];
      /** The contract's evidence files that exist in the run folder. */
      evidence_present: string[];
    }
  | { status: 'errored'; trial: number; run_id: string | null; run_dir: string | null; reason: string };

export type TrialComparison = { observed: ObservedTrial; mismatches: Mismatch[] };

export type ReferenceOutcome = {
  family: string;
  /** Index of the reference in its contract. */
  reference: number;
  agent: string;
  variant: string;
  config: string;
  /** `skipped`: nothing ran (the reason is in `skipped`). */
  status: 'match' | 'violated' | 'skipped';
  skipped?: string;
  trials: TrialComparison[];
  /** Findings over all trials: trial disagreement. */
  across_trials: Mismatch[];
};

export type RunAudit = {
  schema_version: 1;
  audit_id: string;
  kind: 'run';
  registry: string;
  created_at: string;
  finished_at: string;
  options: { trials: number; strict: boolean; workers: number };
  /** The batch that ran every trial: its folder holds the summary, checkpoint and manifest. */
  batch: { id: string; dir: string } | null;
  /** Families the audit could not run at all (no contract). */
  findings: StaticFinding[];
  outcomes: ReferenceOutcome[];
  totals: { match: number; violated: number; skipped: number; errors: number; warnings: number };
};
