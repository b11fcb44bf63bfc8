import type { EvidenceBundle } from '../analysis/evidence-bundle.js';
import type { CheckId, ResolvedConfig, Severity } from '../config/schema.js';
import type { Alert } from './rules/types.js';

/** One piece of evidence behind a finding: a path, a command, a line. Never a secret's value. */
export type EvidenceItem = {
  path?: string;
  command?: string;
  line?: number;
  detail?: string;
};

export type CheckResult = {
  id: CheckId;
  passed: boolean;
  severity: Severity;
  message: string;
  evidence: EvidenceItem[];
};

/** What a check's `run` finds; a severity it returns overrides its default (the config's wins over both). */
export type CheckOutcome = Omit<CheckResult, 'id' | 'severity'> & { severity?: Severity };

/** A config key that says how to judge, not what the task or agent was (`analyze --config` replaces them). */
export type PolicyKey = keyof ResolvedConfig;

/** Everything about one check, written once in its own file (`checks/<id>.ts`) with `defineCheck`. */
export type CheckSpec<Id extends CheckId = CheckId> = {
  id: Id;
  defaultSeverity: Severity;
  /** The config keys the check judges by; `analyze --config` takes these from the new policy. */
  policyKeys: readonly PolicyKey[];
  /** One sentence for people: what a passing run showed. It is the check's row in docs/config.md. */
  doc: string;
  /** A pure function of the evidence (which carries the config snapshot). */
  run: (bundle: EvidenceBundle) => CheckOutcome;
};

/** A defined check: its spec, with `run` tagging what it finds with the check's id. */
export type Check<Id extends CheckId = CheckId> = Omit<CheckSpec<Id>, 'run'> & {
  run: (bundle: EvidenceBundle) => CheckOutcome & { id: Id };
};

/** ERROR: the run was ended before it finished (interrupt, run time limit); judged on partial evidence. */
export type Verdict = 'PASS' | 'FAIL' | 'ERROR';

export type ScoreResult = {
  score: number;
  result: Verdict;
  deductions: { id: string; severity: Severity; points: number }[];
};

export type AnalysisResult = {
  checks: CheckResult[];
  /** Security-rule alerts (empty when no rule set was applied). */
  alerts: Alert[];
  score: ScoreResult;
};
