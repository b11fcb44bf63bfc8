import type { Severity } from '../config/schema.js';
import type { ScoreResult } from './types.js';

/** Anything with a pass/fail outcome and a severity: checks today, security alerts and obligations later. */
export type ScoredFinding = { id: string; passed: boolean; severity: Severity };

/** Points a failed finding costs. */
export const SEVERITY_POINTS: Record<Severity, number> = { info: 0, warning: 10, error: 25, critical: 40 };

/** Severities whose failure fails the run on its own; lower ones only cost points. */
export const BLOCKING_SEVERITIES: ReadonlySet<Severity> = new Set<Severity>(['error', 'critical']);

const MAX_SCORE = 100;

/**
 * 100 minus the points of every failed finding, floored at 0; FAIL when any failed finding is
 * blocking. Pass several lists concatenated (checks, alerts) to score them together.
 */
export function scoreChecks(findings: readonly ScoredFinding[]): ScoreResult {
  const failed = findings.filter((f) => !f.passed);
  // A failed info finding costs nothing, so it is not listed as a deduction.
  const deductions = failed
    .map((f) => ({ id: f.id, severity: f.severity, points: SEVERITY_POINTS[f.severity] }))
    .filter((d) => d.points > 0);
  const lost = deductions.reduce((sum, d) => sum + d.points, 0);
  return {
    score: Math.max(0, MAX_SCORE - lost),
    result: failed.some((f) => BLOCKING_SEVERITIES.has(f.severity)) ? 'FAIL' : 'PASS',
    deductions,
  };
}
