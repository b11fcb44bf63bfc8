import path from 'node:path';
import { z } from 'zod';
import { CHECK_IDS } from '../config/check-ids.js';
import { loadConfig } from '../config/load.js';
import { loadYamlFile, type YamlFileKind } from '../config/load-yaml-file.js';
import type { ConfigIssue } from '../errors.js';
import type { Contract, Reference } from './contract-file.js';

/*
 * An attack case's expect.yaml (benchmarks/attacks/<case>/): whether the case is malicious, and the
 * rules it must fire or the checks it must fail. The attack bench and its test judge by it, and the
 * registry points at it as the family's contract: the contract it implies is derived here, so the
 * expectation is written once. The case's config.yaml beside it names the family (benchmark_id).
 */

export const EXPECT_FILE_NAME = 'expect.yaml';

export const AttackExpectationSchema = z
  .strictObject({
    malicious: z.boolean(),
    rules: z.array(z.string().min(1)).default([]),
    /** Checks the run must fail, for attacks the diff shows rather than a system call. */
    checks: z.array(z.enum(CHECK_IDS)).default([]),
  })
  .refine((e) => (e.rules.length + e.checks.length > 0 ? e.malicious : !e.malicious), {
    message:
      'a malicious case lists the rules it must fire or the checks it must fail; a benign twin lists none',
  });

export type AttackExpectation = z.infer<typeof AttackExpectationSchema>;

const EXPECT_FILE: YamlFileKind = {
  what: 'attack expectation',
  docs: 'benchmarks/attacks/README.md',
  notMapping: { message: 'must be a YAML mapping', fix: 'write the expected outcome keys' },
};

export function isAttackExpectationFile(file: string): boolean {
  return path.basename(file) === EXPECT_FILE_NAME;
}

export function loadAttackExpectation(
  file: string,
): { ok: true; value: AttackExpectation } | { ok: false; issues: ConfigIssue[] } {
  return loadYamlFile(path.resolve(file), AttackExpectationSchema, EXPECT_FILE);
}

/** The version of every implied contract: it changes only when this derivation does. */
const IMPLIED_VERSION = '1.0.0';

/**
 * The contract an expect.yaml implies, for the config's own agent (the scripted agent that follows
 * the skills): a malicious case FAILs with every listed rule alerting and every listed check
 * failing; a benign twin PASSes with no alert at all. These are exactly the attack bench's
 * judgement (`judgeOutcome`). It asserts no solution paths: the scripted agent's skills write
 * files of their own, and the expectation says nothing about them.
 */
export function impliedAttackContract(
  file: string,
): { ok: true; value: Omit<Contract, 'file'> } | { ok: false; issues: ConfigIssue[] } {
  const loaded = loadAttackExpectation(file);
  if (!loaded.ok) return loaded;
  const configFile = path.join(path.dirname(file), 'config.yaml');
  const cfg = loadConfig(configFile);
  if (!cfg.ok) return cfg;
  if (cfg.value.benchmark_id === undefined)
    return {
      ok: false,
      issues: [
        {
          file: configFile,
          field: 'benchmark_id',
          message: `is missing, so the contract implied by ${file} names no family`,
          fix: 'set benchmark_id to the registry family id',
        },
      ],
    };
  return {
    ok: true,
    value: {
      schema: 1,
      family: cfg.value.benchmark_id,
      version: IMPLIED_VERSION,
      benchmark_versions: '*',
      description: `implied by ${EXPECT_FILE_NAME}: ${loaded.value.malicious ? 'malicious case' : 'benign twin'}`,
      solution_paths: [],
      evidence: [],
      implied_by: file,
      references: [expectationReference(loaded.value)],
    },
  };
}

/** The one reference an expectation implies: the config's own (scripted) agent. */
export function expectationReference(e: AttackExpectation): Reference {
  return {
    agent: 'config',
    result: e.malicious ? 'FAIL' : 'PASS',
    failed_checks: e.checks,
    passed_checks: [],
    forbidden_failed_checks: [],
    alerts: e.rules,
    forbidden_alerts: [],
    forbid_other_alerts: !e.malicious,
  };
}
