import { ConfigError, InputError } from '../errors.js';
import type { BatchSummary, RowResult } from '../reports/batch-types.js';

/** A stable summary to compare later batches against, keyed by agent, task, benchmark version and trial. */
export type Baseline = {
  schema_version: 1;
  batch_id: string;
  attempts: {
    key: string;
    agent: string;
    task: string;
    benchmark_version: string | null;
    trial: number;
    result: RowResult;
    score: number | null;
    failed_checks: string[];
  }[];
  groups: { agent: string; task: string; pass_rate: number | null; score_mean: number | null }[];
};

export type Change = 'regressed' | 'improved' | 'unchanged';

export type BaselineComparison = {
  attempts: { key: string; change: Change; before: RowResult; after: RowResult; details: string[] }[];
  groups: {
    agent: string;
    task: string;
    change: Change;
    pass_rate: [number | null, number | null];
    score_mean: [number | null, number | null];
  }[];
  regressions: number;
  improvements: number;
  /** Attempts only in one of the two. */
  unmatched: { only_in_baseline: string[]; only_in_batch: string[] };
};

const keyOf = (agent: string, task: string, trial: number) => `${agent}\u0000${task}\u0000${trial}`;
const shownKey = (k: string) => k.split('\u0000').join(' · ');
const RANK: Record<RowResult, number> = { ERROR: 0, FAIL: 1, PASS: 2 };

export function toBaseline(s: BatchSummary): Baseline {
  return {
    schema_version: 1,
    batch_id: s.batch_id,
    attempts: s.rows.map((r) => ({
      key: shownKey(keyOf(r.agent, r.task, r.trial)),
      agent: r.agent,
      task: r.task,
      benchmark_version: r.benchmark_version,
      trial: r.trial,
      result: r.result,
      score: r.score,
      failed_checks: [...r.failed_checks].sort(),
    })),
    groups: s.groups
      .filter((g) => g.task !== null)
      .map((g) => ({
        agent: g.agent,
        task: g.task as string,
        pass_rate: g.pass_rate,
        score_mean: g.score_mean,
      })),
  };
}

function changeOf(before: number | null, after: number | null): Change {
  if (before === null || after === null || before === after) return 'unchanged';
  return after < before ? 'regressed' : 'improved';
}

/** Refuse a baseline whose tasks have another benchmark version than the tasks about to run. */
export function checkVersions(
  file: string,
  base: Baseline,
  tasks: readonly { task: string; benchmark_version: string | null }[],
): void {
  const versions = new Map(base.attempts.map((a) => [a.task, a.benchmark_version]));
  for (const t of tasks) {
    if (versions.has(t.task) && versions.get(t.task) !== t.benchmark_version)
      throw new ConfigError(
        `${file}: task ${t.task} is benchmark version ${versions.get(t.task) ?? 'none'} there and ${t.benchmark_version ?? 'none'} now, so the results are not comparable. Fix: save a new baseline, or pass --allow-version-mismatch.`,
      );
  }
}

/** Read a baseline file written by --save-baseline. */
export function parseBaseline(file: string, text: string): Baseline {
  let value: Baseline;
  try {
    value = JSON.parse(text) as Baseline;
  } catch {
    throw new InputError(`${file} is not valid JSON. Fix: pass a file written by --save-baseline.`);
  }
  if (value?.schema_version !== 1 || !Array.isArray(value.attempts) || !Array.isArray(value.groups))
    throw new InputError(
      `${file} is not an agentguard baseline. Fix: pass a file written by --save-baseline.`,
    );
  return value;
}

/**
 * Compare a batch with a baseline, attempt by attempt (verdict, then new failed checks) and group
 * by group (pass rate, then mean score). A task whose benchmark version differs is a different
 * task: refused unless `allowVersionMismatch`. Pure.
 */
export function compareWithBaseline(
  file: string,
  base: Baseline,
  s: BatchSummary,
  allowVersionMismatch: boolean,
): BaselineComparison {
  const now = toBaseline(s);
  if (!allowVersionMismatch) checkVersions(file, base, now.attempts);
  const before = new Map(base.attempts.map((a) => [a.key, a]));
  const after = new Map(now.attempts.map((a) => [a.key, a]));
  const attempts: BaselineComparison['attempts'] = [];
  for (const [key, a] of after) {
    const b = before.get(key);
    if (!b) continue;
    const added = a.failed_checks.filter((c) => !b.failed_checks.includes(c));
    const removed = b.failed_checks.filter((c) => !a.failed_checks.includes(c));
    let change: Change = changeOf(RANK[b.result], RANK[a.result]);
    if (change === 'unchanged' && added.length > 0) change = 'regressed';
    else if (change === 'unchanged' && removed.length > 0) change = 'improved';
    attempts.push({
      key,
      change,
      before: b.result,
      after: a.result,
      details: [...added.map((c) => `now fails ${c}`), ...removed.map((c) => `no longer fails ${c}`)],
    });
  }
  const baseGroups = new Map(base.groups.map((g) => [`${g.agent}\u0000${g.task}`, g]));
  const groups: BaselineComparison['groups'] = [];
  for (const g of now.groups) {
    const b = baseGroups.get(`${g.agent}\u0000${g.task}`);
    if (!b) continue;
    let change = changeOf(b.pass_rate, g.pass_rate);
    if (change === 'unchanged') change = changeOf(b.score_mean, g.score_mean);
    groups.push({
      agent: g.agent,
      task: g.task,
      change,
      pass_rate: [b.pass_rate, g.pass_rate],
      score_mean: [b.score_mean, g.score_mean],
    });
  }
  return {
    attempts,
    groups,
    regressions: attempts.filter((a) => a.change === 'regressed').length,
    improvements: attempts.filter((a) => a.change === 'improved').length,
    unmatched: {
      only_in_baseline: [...before.keys()].filter((k) => !after.has(k)),
      only_in_batch: [...after.keys()].filter((k) => !before.has(k)),
    },
  };
}
