import { compileGlobs } from '../analysis/path-glob.js';
import type { Contract, Reference } from '../registry/contract-file.js';
import type { Mismatch, ObservedTrial, ReferenceOutcome, TrialComparison } from '../reports/audit-types.js';

/*
 * An execution audit's judgement, as pure functions: one trial's typed results against one
 * contract reference, then the trials of a reference against each other. Nothing here reads a file.
 *
 * What the contract lists is binding: a check that must fail or pass, a forbidden failed check, an
 * alert that must or must not fire, the solution paths of a PASS reference, the evidence files. What
 * it does not mention is a warning — an unexpected failed check, an unexpected alert, a changed file
 * outside solution_paths, trials that disagree — unless `strict` (or, for alerts, the reference's
 * forbid_other_alerts) makes it binding too.
 */

export type CompareOptions = { strict: boolean };

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

export function compareTrial(
  contract: Pick<Contract, 'solution_paths' | 'evidence'>,
  ref: Reference,
  observed: ObservedTrial,
  opts: CompareOptions,
): Mismatch[] {
  if (observed.status === 'errored')
    return [{ severity: 'error', code: 'run-error', message: `the run did not finish: ${observed.reason}` }];
  const out: Mismatch[] = [];
  const error = (code: Mismatch['code'], message: string) => out.push({ severity: 'error', code, message });
  const unlisted = (code: Mismatch['code'], message: string, binding: boolean) =>
    out.push({ severity: binding ? 'error' : 'warning', code, message });

  if (observed.result !== ref.result)
    error('result', `result ${observed.result}, the contract says ${ref.result}`);

  const ran = new Map(observed.checks.map((c) => [c.id, c.passed]));
  for (const id of ref.failed_checks) {
    if (!ran.has(id)) error('check-not-run', `check '${id}' must fail but did not run`);
    else if (ran.get(id)) error('check-not-failed', `check '${id}' must fail but passed`);
  }
  for (const id of ref.passed_checks) {
    if (!ran.has(id)) error('check-not-run', `check '${id}' must pass but did not run`);
    else if (!ran.get(id)) error('check-not-passed', `check '${id}' must pass but failed`);
  }
  const listed = new Set<string>([...ref.failed_checks, ...ref.passed_checks]);
  for (const id of sorted(observed.checks.filter((c) => !c.passed).map((c) => c.id))) {
    if (ref.forbidden_failed_checks.includes(id as never))
      error('forbidden-check-failed', `check '${id}' failed, and the contract forbids it`);
    else if (!listed.has(id))
      unlisted(
        'unexpected-check-failed',
        `check '${id}' failed, and the contract does not list it`,
        opts.strict,
      );
  }

  const fired = new Set(observed.alerts);
  for (const rule of ref.alerts)
    if (!fired.has(rule)) error('alert-missing', `rule '${rule}' must alert but did not`);
  for (const rule of sorted(fired)) {
    if (ref.forbidden_alerts.includes(rule))
      error('forbidden-alert', `rule '${rule}' alerted, and the contract forbids it`);
    else if (!ref.alerts.includes(rule))
      unlisted(
        'unexpected-alert',
        `rule '${rule}' alerted, and the contract does not list it`,
        opts.strict || ref.forbid_other_alerts,
      );
  }

  // A correct solution's footprint is only promised by references that are meant to PASS.
  if (ref.result === 'PASS' && contract.solution_paths.length > 0) {
    for (const pattern of contract.solution_paths) {
      const matches = compileGlobs([pattern]);
      if (!observed.changed_paths.some((p) => matches(p) !== null))
        error('solution-path-untouched', `no changed file matches solution path '${pattern}'`);
    }
    const inSolution = compileGlobs(contract.solution_paths);
    const outside = sorted(observed.changed_paths.filter((p) => inSolution(p) === null));
    if (outside.length > 0)
      unlisted(
        'outside-solution-paths',
        `changed outside solution_paths: ${outside.join(', ')}`,
        opts.strict,
      );
  }

  const present = new Set(observed.evidence_present);
  for (const file of contract.evidence)
    if (!present.has(file)) error('evidence-missing', `evidence file ${file} is missing from the run folder`);
  return out;
}

/** What two trials must share to agree: verdict, failed checks and alerting rules. */
export function trialSignature(t: ObservedTrial): string {
  if (t.status === 'errored') return 'ERROR (did not finish)';
  const failed = sorted(t.checks.filter((c) => !c.passed).map((c) => c.id));
  return `${t.result}; failed: ${failed.join(', ') || '-'}; alerts: ${sorted(t.alerts).join(', ') || '-'}`;
}

/** Every trial of one reference on one variant, judged, plus whether the trials agree. */
export function compareReference(
  contract: Pick<Contract, 'solution_paths' | 'evidence'>,
  ref: Reference,
  trials: readonly ObservedTrial[],
  opts: CompareOptions,
): Pick<ReferenceOutcome, 'status' | 'trials' | 'across_trials'> {
  const compared: TrialComparison[] = trials.map((observed) => ({
    observed,
    mismatches: compareTrial(contract, ref, observed, opts),
  }));
  const across: Mismatch[] = [];
  const signatures = sorted(trials.map(trialSignature));
  if (signatures.length > 1)
    across.push({
      severity: opts.strict ? 'error' : 'warning',
      code: 'unstable',
      message: `the ${trials.length} trials disagree: ${trials.map((t) => `trial ${t.trial}: ${trialSignature(t)}`).join(' | ')}`,
    });
  const violated = [...compared.flatMap((c) => c.mismatches), ...across].some((m) => m.severity === 'error');
  return { status: violated ? 'violated' : 'match', trials: compared, across_trials: across };
}
