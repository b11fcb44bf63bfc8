import path from 'node:path';
import semver from 'semver';
import { isAgentName } from '../agents/index.js';
import { loadYamlFile, type YamlFileKind } from '../config/load-yaml-file.js';
import type { ConfigIssue } from '../errors.js';
import { impliedAttackContract, isAttackExpectationFile } from './attack-expectation.js';
import { type Contract, ContractFileSchema } from './contract-file.js';

const CONTRACT_FILE: YamlFileKind = {
  what: 'contract',
  docs: 'docs/registry.md',
  notMapping: {
    message: 'must be a YAML mapping of keys to values',
    fix: 'see docs/registry.md for the contract format',
  },
};

/**
 * A contract file, validated, or every issue found in it. An attack case's `expect.yaml` is read as
 * the contract it implies (see attack-expectation.ts): the attack suite's expectation stays its one
 * definition, and the registry points at it.
 */
export function loadContract(
  file: string,
): { ok: true; value: Contract } | { ok: false; issues: ConfigIssue[] } {
  const abs = path.resolve(file);
  const loaded = isAttackExpectationFile(abs)
    ? impliedAttackContract(abs)
    : loadYamlFile(abs, ContractFileSchema, CONTRACT_FILE);
  if (!loaded.ok) return loaded;
  const c = loaded.value;
  const issues: ConfigIssue[] = [];
  const issue = (field: string, message: string, fix: string) =>
    issues.push({ file: abs, field, message, fix });
  if (semver.valid(c.version) === null || semver.clean(c.version) !== c.version)
    issue(
      'version',
      `'${c.version}' is not a strict semantic version`,
      "write it as MAJOR.MINOR.PATCH, e.g. '1.0.0'",
    );
  if (semver.validRange(c.benchmark_versions) === null)
    issue(
      'benchmark_versions',
      `'${c.benchmark_versions}' is not a semver range`,
      "write a range such as '1.x' or '>=1.0.0 <2'",
    );
  for (const [i, ref] of c.references.entries()) {
    if (ref.agent !== 'config' && !isAgentName(ref.agent))
      issue(
        `references[${i}].agent`,
        `'${ref.agent}' is neither a built-in agent nor 'config'`,
        "name a built-in agent (agentguard run --help lists them) or 'config' for the config's own agent",
      );
    const both = ref.failed_checks.filter(
      (id) => ref.passed_checks.includes(id) || ref.forbidden_failed_checks.includes(id),
    );
    for (const id of both)
      issue(
        `references[${i}].failed_checks`,
        `'${id}' must fail and must pass at once`,
        'list the check in one of them',
      );
    for (const id of ref.alerts.filter((a) => ref.forbidden_alerts.includes(a)))
      issue(
        `references[${i}].alerts`,
        `'${id}' must fire and must not fire at once`,
        'list the rule in one of them',
      );
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: { ...c, file: abs } as Contract };
}
