import { CHECK_IDS, type CheckId, type Severity } from '../config/schema.js';
import type { EvidenceBundle } from '../evidence/bundle-types.js';
import { CHECKS, DEFAULT_SEVERITY } from './checks/index.js';
import { scoreChecks } from './score.js';
import type { AnalysisResult, CheckResult } from './types.js';

/** Every check in CHECK_IDS order with its effective severity, then the score. Pure. */
export function analyze(bundle: EvidenceBundle): AnalysisResult {
  const checks = CHECK_IDS.map((id) => runCheck(id, bundle));
  return { checks, score: scoreChecks(checks) };
}

/** The config's override wins, then what the check itself asked for, then the default. */
export function checkSeverity(id: CheckId, bundle: EvidenceBundle, fromCheck?: Severity): Severity {
  return bundle.config.severity[id] ?? fromCheck ?? DEFAULT_SEVERITY[id];
}

function runCheck(id: CheckId, bundle: EvidenceBundle): CheckResult {
  try {
    const { severity, ...rest } = CHECKS[id](bundle);
    return { ...rest, id, severity: checkSeverity(id, bundle, severity) };
  } catch (err) {
    // Evidence from an old or hand-edited run can break a check's assumptions; the other checks
    // still run, and this one fails closed rather than vouching for what it could not examine.
    const reason = err instanceof Error ? err.message : String(err);
    return {
      id,
      passed: false,
      severity: checkSeverity(id, bundle),
      message: `the check could not run: ${reason.split('\n')[0]}`,
      evidence: [],
    };
  }
}
