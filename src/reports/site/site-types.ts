import type { BatchHistoryRow, HistoryRow } from '../../history/types.js';
import type { Group } from '../batch-types.js';

/**
 * One run as the site's index embeds it: the history row's fields a reader filters by, already
 * redacted, and where its page is. `page` is a path the site builder made (never from the data).
 */
export type SiteRun = {
  run_id: string;
  task: string;
  agent: string;
  model: string | null;
  benchmark: string | null;
  benchmark_version: string | null;
  result: HistoryRow['result'];
  score: number;
  failed_checks: string[];
  /** Null: not known (recorded before history schema 4 and its report since gone). */
  alert_rules: string[] | null;
  started_at: string;
  duration_ms: number;
  batch: string | null;
  /** `runs/<name>.html`, or null when the run's report.html could not be taken (see `note`). */
  page: string | null;
  /** `batches/<name>.html` of its batch, when the site has one. */
  batch_page: string | null;
  note: string | null;
};

export type SiteBatch = Pick<
  BatchHistoryRow,
  | 'batch_id'
  | 'kind'
  | 'started_at'
  | 'finished_at'
  | 'complete'
  | 'attempts_planned'
  | 'pass'
  | 'fail'
  | 'error'
  | 'not_run'
> & { page: string };

/** What the index says about how it was made: the filters given, and when. */
export type SiteMeta = { generated_at: string; filters: Record<string, string>; agentguard_version: string };

/** A batch page's agents × tasks cells (already redacted), or why the batch folder gave none. */
export type SiteGrid = { groups: Group[] } | { note: string };
