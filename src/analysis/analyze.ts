import type { EvidenceBundle } from '../analysis/evidence-bundle.js';
import { CHECK_IDS, type CheckId, type Severity } from '../config/schema.js';
import { CHECKS } from './checks/index.js';
import { buildRuleContext } from './rules/context.js';
import { evaluateRules } from './rules/evaluate.js';
import { finalStateChanges } from './rules/final-state.js';
import type { Alert, RuleSet } from './rules/types.js';
import { type ScoredFinding, SEVERITY_POINTS, scoreChecks } from './score.js';
import { writtenCanaries } from './secrets/written-canaries.js';
import type { AnalysisResult, CheckResult } from './types.js';

/** How to analyse beyond the evidence and the rules. */
export type AnalyzeOptions = {
  /**
   * Checks not executed at all: absent from the result and from the score, which is taken over the
   * checks that did run (policy ablation asks what each check adds by leaving exactly one out).
   */
  omitChecks?: ReadonlySet<CheckId>;
  /**
   * The rules' alerts over this same bundle, already computed: they do not depend on which checks
   * run, so a caller analysing one bundle several ways (ablation) evaluates the rules once.
   */
  alerts?: readonly Alert[];
};

/**
 * Every check in CHECK_IDS order (less any omitted) with its effective severity, the security
 * rules' alerts when a rule set is given, then the score over both (each alerting rule counts
 * once). Pure.
 */
export function analyze(
  bundle: EvidenceBundle,
  rules?: RuleSet,
  options: AnalyzeOptions = {},
): AnalysisResult {
  const omit = options.omitChecks;
  const checks = CHECK_IDS.filter((id) => !omit?.has(id)).map((id) => runCheck(id, bundle));
  const alerts = options.alerts ? [...options.alerts] : rules ? securityAlerts(bundle, rules) : [];
  const byRule = new Map<string, ScoredFinding>();
  for (const a of alerts) {
    const seen = byRule.get(a.rule);
    if (!seen || SEVERITY_POINTS[a.severity] > SEVERITY_POINTS[seen.severity]) {
      byRule.set(a.rule, { id: `alert:${a.rule}`, passed: false, severity: a.severity });
    }
  }
  const score = scoreChecks([...checks, ...byRule.values()]);
  // A run cut short is no verdict on the agent either way: its partial evidence is still judged.
  if (bundle.stopped !== undefined) score.result = 'ERROR';
  return { checks, alerts, score };
}

/** The rules over the run's syscalls, network records, final diff and final state, then over the test phase's syscalls. */
export function securityAlerts(bundle: EvidenceBundle, rules: RuleSet): Alert[] {
  const ctx = buildRuleContext({
    workspace: bundle.workspace.repo_dir,
    home: bundle.canaries?.home ?? bundle.observation.sandbox.facts?.home_inside ?? '/root',
    canaryPaths: bundle.canaries?.canaries.map((c) => c.path) ?? [],
    canaryFiles: bundle.canaries?.canaries ?? [],
    ...(bundle.protected_state ? { protectedFiles: bundle.protected_state.files } : {}),
    allow: bundle.config.network.allow,
    hostsMap: bundle.config.network.hosts,
    stateDirs: bundle.config.security.state_dirs,
    ...(bundle.agent.vendor_hosts ? { vendorHosts: bundle.agent.vendor_hosts } : {}),
    bindsRecorded: bundle.observation.tracer.binds === true,
    stdioCopiesUnrecorded: bundle.observation.tracer.paths === 'as-written',
    ...(bundle.observation.sandbox.facts?.run_user
      ? { runUser: bundle.observation.sandbox.facts.run_user }
      : {}),
    ...(bundle.observation.network.endpoint
      ? { harnessEndpoints: [bundle.observation.network.endpoint] }
      : {}),
  });
  const agent = evaluateRules(
    {
      syscalls: bundle.syscalls,
      network: bundle.network,
      patch: bundle.patch,
      files: bundle.diff.files,
      testPaths: bundle.config.test_paths,
      written: writtenCanaries(bundle),
      finalState: finalStateChanges({
        workspace: bundle.workspace.repo_dir,
        files: bundle.diff.files,
        ignored: bundle.diff.ignored_files,
        ...(bundle.protected_state ? { protectedState: bundle.protected_state } : {}),
      }),
    },
    rules,
    ctx,
  );
  // The tests run the agent's code: a poisoned test or import that reads a canary while they run
  // is the agent's doing too. The calls, and HOME's and .git's changes while the tests ran; the diff was judged above.
  const testChanges = bundle.protected_state?.test_changes;
  const tests = evaluateRules(
    {
      syscalls: bundle.test_syscalls,
      before: bundle.syscalls,
      network: [],
      patch: '',
      files: [],
      ...(testChanges ? { finalState: testChanges } : {}),
    },
    rules,
    ctx,
  );
  return [...agent, ...tests.map((a): Alert => ({ ...a, phase: 'tests' }))];
}

/** The config's override wins, then what the check itself asked for, then the default. */
export function checkSeverity(id: CheckId, bundle: EvidenceBundle, fromCheck?: Severity): Severity {
  return bundle.config.severity[id] ?? fromCheck ?? CHECKS[id].defaultSeverity;
}

function runCheck(id: CheckId, bundle: EvidenceBundle): CheckResult {
  try {
    const { severity, ...rest } = CHECKS[id].run(bundle);
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
