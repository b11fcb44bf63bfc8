import { existsSync } from 'node:fs';
import path from 'node:path';
import { analyze } from '../analysis/analyze.js';
import type { AnalysisResult } from '../analysis/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { runPath } from '../evidence/layout.js';
import { MANIFEST_SCHEMA_VERSION } from '../provenance/manifest-schema.js';
import type { TraceRecord } from '../provenance/trace-records.js';
import { type Verification, verifyRun } from '../provenance/verify.js';
import { withPolicy } from './analyse-run.js';
import { readBundle } from './read-bundle.js';
import { loadRunRules, rulesOfRun } from './rules.js';

export type Replayability =
  | { replayable: true; records: number }
  | { replayable: false; reason: string; verification: Verification };

/** Can this run be replayed: it verifies, and it carries what the analysis needs (its rule texts). */
export function replayability(runDir: string): Replayability {
  const v = verifyRun(runDir);
  if (v.status !== 'intact') {
    return { replayable: false, reason: v.reason, verification: v };
  }
  // Version 2 only added the git state, which replay does not read: both judge the same evidence.
  if (v.manifest.schema_version < 1 || v.manifest.schema_version > MANIFEST_SCHEMA_VERSION) {
    return {
      replayable: false,
      reason: `manifest schema ${v.manifest.schema_version} is not replayed by this version`,
      verification: v,
    };
  }
  if (!existsSync(runPath(path.resolve(runDir), 'rules'))) {
    return {
      replayable: false,
      reason: 'evidence/rules.json is missing, so the rule texts the run was judged by are unknown',
      verification: v,
    };
  }
  return { replayable: true, records: v.records.length };
}

export type CheckDifference = { id: string; stored: boolean | null; replayed: boolean | null };
export type AlertKey = { rule: string; seq: number; phase: string | null };

export type Equivalence = {
  run_id: string;
  policy: 'stored' | string;
  equivalent: boolean;
  verdict: { stored: string; replayed: string };
  score: { stored: number; replayed: number };
  checks: CheckDifference[];
  alerts: { only_stored: AlertKey[]; only_replayed: AlertKey[] };
};

/**
 * Re-run the shared checks, rules and scoring on a verified run's evidence and compare them with
 * the judgement its trace recorded. Spawns nothing, touches no network, writes nothing. The
 * evidence files read are exactly the ones the verified trace commits to by sha256.
 */
export function replayRun(
  runDir: string,
  policy?: ResolvedConfig,
):
  | { status: 'replayed'; equivalence: Equivalence }
  | { status: 'not-replayable'; replayability: Replayability & { replayable: false } } {
  const r = replayability(runDir);
  if (!r.replayable) return { status: 'not-replayable', replayability: r };
  const verified = verifyRun(runDir);
  if (verified.status !== 'intact') throw new Error('unreachable: replayability verified the run');
  const bundle = readBundle(runDir);
  if (policy) bundle.config = withPolicy(bundle.config, policy);
  const rules = policy ? loadRunRules(bundle.config).ruleset : rulesOfRun(bundle.run_dir, bundle.config);
  const analysis = analyze(bundle, rules);
  return {
    status: 'replayed',
    equivalence: compare(bundle.run_id, verified.records, analysis, policy?.config_path ?? 'stored'),
  };
}

/** Stored judgement (from trace records) against a replayed one. Pure. */
export function compare(
  runId: string,
  records: readonly TraceRecord[],
  replayed: AnalysisResult,
  policy: string,
): Equivalence {
  const score = records.find((r) => r.kind === 'score');
  const storedChecks = new Map<string, boolean>();
  const storedAlerts: AlertKey[] = [];
  for (const r of records) {
    if (r.kind === 'check') storedChecks.set(r.id, r.passed);
    if (r.kind === 'alert') storedAlerts.push({ rule: r.rule, seq: r.event_seq, phase: r.phase });
  }
  const replayedChecks = new Map(replayed.checks.map((c) => [c.id as string, c.passed]));
  const checks: CheckDifference[] = [];
  for (const id of new Set([...storedChecks.keys(), ...replayedChecks.keys()])) {
    const stored = storedChecks.get(id) ?? null;
    const again = replayedChecks.get(id) ?? null;
    if (stored !== again) checks.push({ id, stored, replayed: again });
  }
  const key = (a: AlertKey) => `${a.rule}\0${a.seq}\0${a.phase ?? ''}`;
  const replayedAlerts: AlertKey[] = replayed.alerts.map((a) => ({
    rule: a.rule,
    seq: a.seq,
    phase: a.phase ?? null,
  }));
  const storedKeys = new Set(storedAlerts.map(key));
  const replayedKeys = new Set(replayedAlerts.map(key));
  const alerts = {
    only_stored: storedAlerts.filter((a) => !replayedKeys.has(key(a))),
    only_replayed: replayedAlerts.filter((a) => !storedKeys.has(key(a))),
  };
  const verdict = {
    stored: score?.kind === 'score' ? score.result : 'unknown',
    replayed: replayed.score.result,
  };
  const scores = {
    stored: score?.kind === 'score' ? score.score : Number.NaN,
    replayed: replayed.score.score,
  };
  return {
    run_id: runId,
    policy,
    equivalent:
      verdict.stored === verdict.replayed &&
      scores.stored === scores.replayed &&
      checks.length === 0 &&
      alerts.only_stored.length === 0 &&
      alerts.only_replayed.length === 0,
    verdict,
    score: scores,
    checks,
    alerts,
  };
}
