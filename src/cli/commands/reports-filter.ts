import { InputError } from '../../errors.js';
import type { HistoryFilter, HistoryVerdict } from '../../history/types.js';

export type FilterOptions = {
  limit?: number | string;
  agent?: string;
  task?: string;
  benchmark?: string;
  result?: string;
  batch?: string;
  since?: string;
  until?: string;
};

const VERDICTS: readonly HistoryVerdict[] = ['PASS', 'FAIL', 'ERROR'];

/** The `reports list|export` flags as a history filter; a bad value is one sentence naming the flag and the fix. */
export function historyFilter(opts: FilterOptions, defaultLimit: number): HistoryFilter {
  const filter: HistoryFilter = { limit: positiveInt(opts.limit, defaultLimit) };
  if (opts.agent !== undefined) filter.agent = String(opts.agent);
  if (opts.task !== undefined) filter.task = String(opts.task);
  if (opts.benchmark !== undefined) filter.benchmark = String(opts.benchmark);
  if (opts.batch !== undefined) filter.batch = String(opts.batch);
  if (opts.result !== undefined) {
    const verdict = String(opts.result).toUpperCase() as HistoryVerdict;
    if (!VERDICTS.includes(verdict)) {
      throw new InputError(
        `--result ${opts.result} is not a verdict. Fix: use --result PASS, FAIL or ERROR.`,
      );
    }
    filter.result = verdict;
  }
  if (opts.since !== undefined) filter.since = isoTime('--since', opts.since);
  if (opts.until !== undefined) filter.until = isoTime('--until', opts.until);
  return filter;
}

function positiveInt(value: number | string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new InputError(`--limit ${value} is not a positive whole number. Fix: use e.g. --limit 50.`);
  }
  return n;
}

/** A date (2026-12-01) or a time (2026-12-01T10:00:00Z) as the ISO form history stores. */
function isoTime(flag: string, value: string | number): string {
  const text = String(value);
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new InputError(
      `${flag} ${text} is not a date. Fix: use a date such as 2026-12-01 or 2026-12-01T10:00:00Z.`,
    );
  }
  return new Date(ms).toISOString();
}
