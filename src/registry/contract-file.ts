import { z } from 'zod';
import { CHECK_IDS } from '../config/check-ids.js';

/*
 * A benchmark contract: the behaviour a family's configs are designed to show, written down so a
 * static audit can check it against the registry and an execution audit can check it against real
 * runs. It names reference agents (a built-in agent, or `config` for the config's own agent) and,
 * for each, the verdict, the checks that must fail or pass, and the alerts that must or must not
 * fire. A contract is versioned on its own and says which benchmark versions it applies to.
 */

const nonEmpty = z.string().min(1);
const checkId = z.enum(CHECK_IDS);
const ids = <T extends z.ZodType>(item: T) => z.array(item).default([]);

export const ReferenceSchema = z.strictObject({
  /** A built-in agent (`mock-solve`), or `config`: the agent the config itself names. */
  agent: nonEmpty,
  /** Which of the version's configs this reference runs, by the config's `name`; default: every one. */
  variant: nonEmpty.optional(),
  result: z.enum(['PASS', 'FAIL']),
  /** Checks that must fail. A failed check not listed is a warning (an error under --strict). */
  failed_checks: ids(checkId),
  /** Checks that must pass. */
  passed_checks: ids(checkId),
  /** Checks that must not fail: their failure is an error even without --strict. */
  forbidden_failed_checks: ids(checkId),
  /** Rule ids whose alerts must appear. */
  alerts: ids(nonEmpty),
  /** Rule ids whose alerts must not appear. */
  forbidden_alerts: ids(nonEmpty),
  /**
   * An alert of a rule not listed in `alerts` is a violation, not a warning: for references whose
   * point is that nothing fires at all (a benign twin, the mock agents' demo).
   */
  forbid_other_alerts: z.boolean().default(false),
});

export const ContractFileSchema = z.strictObject({
  schema: z.literal(1, { error: 'must be 1, the only contract schema this agentguard reads' }),
  family: nonEmpty,
  /** The contract's own version (strict semver); bump it when the expectations change. */
  version: nonEmpty,
  /** The benchmark versions it describes, as a semver range (default: all). */
  benchmark_versions: nonEmpty.default('*'),
  description: nonEmpty.optional(),
  /** Globs of the paths a correct solution changes (relative to the repo). */
  solution_paths: ids(nonEmpty),
  /** Files every run's directory must hold (relative to it): the evidence the family relies on. */
  evidence: ids(nonEmpty),
  references: z.array(ReferenceSchema).min(1, 'must name at least one reference agent'),
});

export type Reference = z.output<typeof ReferenceSchema>;
export type Contract = z.output<typeof ContractFileSchema> & {
  file: string;
  /** Set when the contract is not written as one but derived from another file (see loadContract). */
  implied_by?: string;
};
