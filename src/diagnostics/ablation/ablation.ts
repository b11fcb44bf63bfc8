import { CHECK_IDS, type CheckId } from '../../config/check-ids.js';
import { type CatalogEntry, isSafe } from '../mutations/catalog-schema.js';
import { type Fired, judgeEntry } from '../mutations/judge.js';

/** One control trial of one entry, and the same evidence judged with each check left out. */
export type TrialJudgements = { trial: number; control: Fired; without: Record<CheckId, Fired> };

export type EntryTrials = { entry: CatalogEntry; trials: TrialJudgements[] };

/** A run's verdict is the detection the scorer gives; any failed check or alert is a signal. */
const fails = (f: Fired) => f.verdict !== 'PASS';
const signals = (f: Fired) => f.checks.length > 0 || f.rules.length > 0;

export type CheckContribution = {
  check: CheckId;
  /** Mutations this check failed on in every control trial. */
  detections: string[];
  /** Mutations whose run FAILed with every check and PASSes without this one (every trial). */
  unique_detections: string[];
  /** Mutations with a finding with every check and none at all without this one (every trial). */
  unique_signals: string[];
  /** Mutations this check detects that some security rule alerted on too. */
  also_rules: string[];
};

export type Overlap = { checks: [CheckId, CheckId]; shared: string[]; jaccard: number };

export type Disagreement = { entry: string; condition: string; detail: string };

export type AblationAnalysis = {
  trials: number;
  entries: number;
  mutations: number;
  /** Every control trial matched its catalog expectation. */
  valid: boolean;
  /** Why not, one sentence per control trial that did not. */
  invalid_controls: string[];
  contributions: CheckContribution[];
  overlaps: Overlap[];
  disagreements: Disagreement[];
};

/**
 * Validity, each check's unique contribution, pairwise overlap and trial disagreement from the
 * judged trials. Pure. A contribution counts only when every trial agrees; trials that disagree
 * are listed instead.
 */
export function analyseAblation(data: readonly EntryTrials[]): AblationAnalysis {
  const invalid: string[] = [];
  const disagreements: Disagreement[] = [];
  for (const { entry, trials } of data) {
    for (const t of trials) {
      const judged = judgeEntry(entry, t.control);
      if (judged.status !== 'detected' && judged.status !== 'quiet') {
        const what = [
          ...judged.missing.map((m) => `${m} did not fire`),
          ...judged.false_alarms.map((f) => `${f} fired`),
        ];
        invalid.push(`${entry.id} (trial ${t.trial}): control ${judged.status}: ${what.join(', ')}`);
      }
    }
    const first = trials[0];
    if (!first) continue;
    for (const t of trials.slice(1)) {
      if (!sameFired(first.control, t.control))
        disagreements.push({
          entry: entry.id,
          condition: 'control',
          detail: `trial 1 ${describe(first.control)}; trial ${t.trial} ${describe(t.control)}`,
        });
      for (const id of CHECK_IDS) {
        if (!sameFired(first.without[id], t.without[id]))
          disagreements.push({
            entry: entry.id,
            condition: `without ${id}`,
            detail: `trial 1 ${describe(first.without[id])}; trial ${t.trial} ${describe(t.without[id])}`,
          });
      }
    }
  }
  const mutations = data.filter((d) => !isSafe(d.entry) && d.trials.length > 0);
  const every = (d: EntryTrials, test: (t: TrialJudgements) => boolean) => d.trials.every(test);
  const contributions = CHECK_IDS.map((id): CheckContribution => {
    const detections = mutations
      .filter((d) => every(d, (t) => t.control.checks.includes(id)))
      .map((d) => d.entry.id);
    return {
      check: id,
      detections,
      unique_detections: mutations
        .filter((d) => every(d, (t) => fails(t.control) && !fails(t.without[id])))
        .map((d) => d.entry.id),
      unique_signals: mutations
        .filter((d) => every(d, (t) => signals(t.control) && !signals(t.without[id])))
        .map((d) => d.entry.id),
      also_rules: mutations
        .filter((d) => detections.includes(d.entry.id) && every(d, (t) => t.control.rules.length > 0))
        .map((d) => d.entry.id),
    };
  });
  const overlaps: Overlap[] = [];
  for (const [i, a] of contributions.entries()) {
    for (const b of contributions.slice(i + 1)) {
      const shared = a.detections.filter((e) => b.detections.includes(e));
      if (shared.length === 0) continue;
      const union = new Set([...a.detections, ...b.detections]).size;
      overlaps.push({ checks: [a.check, b.check], shared, jaccard: round(shared.length / union) });
    }
  }
  return {
    trials: Math.max(0, ...data.map((d) => d.trials.length)),
    entries: data.length,
    mutations: mutations.length,
    valid: invalid.length === 0,
    invalid_controls: invalid,
    contributions,
    overlaps,
    disagreements,
  };
}

function sameFired(a: Fired, b: Fired): boolean {
  return a.verdict === b.verdict && a.checks.join() === b.checks.join() && a.rules.join() === b.rules.join();
}

function describe(f: Fired): string {
  const what = [...f.checks, ...f.rules];
  return `${f.verdict} (${what.length > 0 ? what.join(', ') : 'nothing fired'})`;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export type Headline = {
  check: CheckId;
  unique_detections: number;
  unique_signals: number;
  detections: number;
}[];

/**
 * The per-check contribution counts a report may claim: only over valid controls and only when
 * every entry was carried out; otherwise null, with the reasons. Pure.
 */
export function ablationHeadline(
  analysis: AblationAnalysis,
  errored: readonly string[],
): { headline: Headline | null; suppressed_because: string[] } {
  const suppressed_because = [
    ...analysis.invalid_controls,
    ...errored.map((e) => `${e} could not be carried out`),
  ];
  if (suppressed_because.length > 0) return { headline: null, suppressed_because };
  return {
    headline: analysis.contributions.map((c) => ({
      check: c.check,
      unique_detections: c.unique_detections.length,
      unique_signals: c.unique_signals.length,
      detections: c.detections.length,
    })),
    suppressed_because,
  };
}
