import type { AnalysisResult } from '../../analysis/types.js';
import { CHECK_IDS } from '../../config/check-ids.js';
import { type CatalogEntry, isSafe } from './catalog-schema.js';

/** What fired in one analysed run: failed checks, alerting rules and the scored verdict. */
export type Fired = { checks: string[]; rules: string[]; verdict: string; score: number };

export function firedOf(analysis: AnalysisResult): Fired {
  return {
    checks: analysis.checks.filter((c) => !c.passed).map((c) => c.id),
    rules: [...new Set(analysis.alerts.map((a) => a.rule))].sort(),
    verdict: analysis.score.result,
    score: analysis.score.score,
  };
}

/**
 * detected: every must-fail check failed and rule alerted, nothing must-not-fail fired, and the
 * verdict is the expected one. missed: something that must fail did not (or the verdict stayed
 * PASS). false-alarm: something that must stay quiet fired (on a safe entry, anything at all).
 * quiet: a safe entry that stayed quiet. errored: the entry could not be carried out.
 */
export type EntryStatus = 'detected' | 'missed' | 'false-alarm' | 'quiet' | 'errored';

export type EntryOutcome = {
  id: string;
  category: string;
  fixture: string;
  safe: boolean;
  status: EntryStatus;
  expected_verdict: 'PASS' | 'FAIL';
  fired: Fired | null;
  /** Must-fail ids ("check:x", "rule:y") that did not fire. */
  missing: string[];
  /** Ids that fired though they must not (for a safe entry: every one that fired). */
  false_alarms: string[];
  /** Ids that fired on a mutation without being named either way: shown, not counted. */
  incidental: string[];
  error?: string;
  run_dir?: string;
};

const tag = (kind: 'check' | 'rule', id: string) => `${kind}:${id}`;

/** Judge one entry's analysed run against its expectations. Pure. */
export function judgeEntry(entry: CatalogEntry, fired: Fired): Omit<EntryOutcome, 'run_dir'> {
  const safe = isSafe(entry);
  const firedTags = [...fired.checks.map((c) => tag('check', c)), ...fired.rules.map((r) => tag('rule', r))];
  const mustFail = [
    ...entry.must_fail.checks.map((c) => tag('check', c)),
    ...entry.must_fail.rules.map((r) => tag('rule', r)),
  ];
  const mustNot = new Set([
    ...entry.must_not_fail.checks.map((c) => tag('check', c)),
    ...entry.must_not_fail.rules.map((r) => tag('rule', r)),
  ]);
  const missing = mustFail.filter((t) => !firedTags.includes(t));
  if (!safe && entry.verdict === 'FAIL' && fired.verdict === 'PASS') missing.push('verdict:FAIL');
  const falseAlarms = firedTags.filter((t) => safe || mustNot.has(t));
  if (safe && fired.verdict !== 'PASS') falseAlarms.push(`verdict:${fired.verdict}`);
  const incidental = safe ? [] : firedTags.filter((t) => !mustFail.includes(t) && !mustNot.has(t));
  const status: EntryStatus =
    missing.length > 0 ? 'missed' : falseAlarms.length > 0 ? 'false-alarm' : safe ? 'quiet' : 'detected';
  return {
    id: entry.id,
    category: entry.category,
    fixture: entry.fixture,
    safe,
    status,
    expected_verdict: entry.verdict,
    fired,
    missing,
    false_alarms: falseAlarms,
    incidental,
  };
}

export function erroredEntry(entry: CatalogEntry, error: string): EntryOutcome {
  return {
    id: entry.id,
    category: entry.category,
    fixture: entry.fixture,
    safe: isSafe(entry),
    status: 'errored',
    expected_verdict: entry.verdict,
    fired: null,
    missing: [],
    false_alarms: [],
    incidental: [],
    error,
  };
}

/** Per check or rule: how the catalog exercised it. */
export type ItemTally = {
  id: string;
  kind: 'check' | 'rule';
  /** Entries that name it must-fail and where it fired. */
  detections: string[];
  /** Entries that name it must-fail and where it did not fire. */
  misses: string[];
  /** Entries where it fired though it must not (every safe entry counts). */
  false_alarms: string[];
  /** Mutations where it fired without being named. */
  incidental: string[];
};

export type MutationSummary = {
  entries: number;
  detected: number;
  missed: number;
  false_alarms: number;
  quiet: number;
  errored: number;
  checks: ItemTally[];
  rules: ItemTally[];
  /** Checks and rules no entry detected: findings, to fix with a new entry or in the check. */
  uncovered: { checks: string[]; rules: string[] };
};

/** Tally the outcomes per entry, per check (all of them) and per rule (the given default ids). Pure. */
export function summarise(outcomes: readonly EntryOutcome[], ruleIds: readonly string[]): MutationSummary {
  const tally = (kind: 'check' | 'rule', id: string): ItemTally => {
    const t = tag(kind, id);
    const item: ItemTally = { id, kind, detections: [], misses: [], false_alarms: [], incidental: [] };
    for (const o of outcomes) {
      if (o.status === 'errored' || !o.fired) continue;
      const fired = (kind === 'check' ? o.fired.checks : o.fired.rules).includes(id);
      if (o.missing.includes(t)) item.misses.push(o.id);
      else if (fired && o.false_alarms.includes(t)) item.false_alarms.push(o.id);
      else if (fired && o.incidental.includes(t)) item.incidental.push(o.id);
      else if (fired) item.detections.push(o.id);
    }
    return item;
  };
  const checks = CHECK_IDS.map((id) => tally('check', id));
  const rules = ruleIds.map((id) => tally('rule', id));
  const count = (s: EntryStatus) => outcomes.filter((o) => o.status === s).length;
  return {
    entries: outcomes.length,
    detected: count('detected'),
    missed: count('missed'),
    false_alarms: count('false-alarm'),
    quiet: count('quiet'),
    errored: count('errored'),
    checks,
    rules,
    uncovered: {
      checks: checks.filter((c) => c.detections.length === 0).map((c) => c.id),
      rules: rules.filter((r) => r.detections.length === 0).map((r) => r.id),
    },
  };
}
