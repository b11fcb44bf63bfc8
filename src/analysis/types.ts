import type { CheckId, Severity } from '../config/schema.js';
import type { EvidenceBundle } from '../evidence/bundle-types.js';
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

/** A check is a pure function of the evidence (which carries the config snapshot). */
export type Check = (bundle: EvidenceBundle) => Omit<CheckResult, 'severity'> & { severity?: Severity };

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
