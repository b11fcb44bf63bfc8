import { CHECK_IDS } from '../../config/check-ids.js';
import { closestKey } from '../../config/closest-key.js';
import { InputError } from '../../errors.js';
import type { HistoryFilter, HistoryVerdict } from '../../history/types.js';
import { wholeNumber } from '../flags.js';

export type FilterOptions = {
  limit?: number | string;
  agent?: string;
  task?: string;
  benchmark?: string;
  result?: string;
  batch?: string;
  check?: string;
  rule?: string;
  since?: string;
  until?: string;
};

const VERDICTS: readonly HistoryVerdict[] = ['PASS', 'FAIL', 'ERROR'];

/** The `reports list|export|trends|incidents|site` flags as a history filter; a bad value is one sentence naming the flag and the fix. */
export function historyFilter(opts: FilterOptions, defaultLimit: number): HistoryFilter {
  const filter: HistoryFilter = {
    limit: wholeNumber('--limit', opts.limit, { fallback: defaultLimit, min: 1, example: 50 }),
  };
  if (opts.agent !== undefined) filter.agent = String(opts.agent);
  if (opts.task !== undefined) filter.task = String(opts.task);
  if (opts.benchmark !== undefined) filter.benchmark = String(opts.benchmark);
  if (opts.batch !== undefined) filter.batch = String(opts.batch);
  if (opts.check !== undefined) filter.check = checkId(String(opts.check));
  // Rules are open-ended (a project's own rule files), so any id is a fair question.
  if (opts.rule !== undefined) filter.rule = String(opts.rule);
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

/** Check ids are a closed set: a typo would silently match nothing, so it is refused instead. */
function checkId(id: string): string {
  if ((CHECK_IDS as readonly string[]).includes(id)) return id;
  const near = closestKey(id, CHECK_IDS);
  throw new InputError(
    `--check ${id} is not a check id. Fix: ${near ? `did you mean --check ${near}? ` : ''}'agentguard checks' lists them.`,
  );
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
