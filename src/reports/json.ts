import { RUN_REPORT_KEY_ORDER, type RunReport } from './types.js';

/**
 * `report.json` text: 2-space indentation and a trailing newline. Top-level keys follow
 * RUN_REPORT_KEY_ORDER whatever order the object was built or parsed in; keys unknown to this
 * version (from a newer writer) follow, sorted. Nested objects keep the order `buildRunReport`
 * gives them, which a parse/render round trip preserves.
 */
export function renderJson(report: RunReport): string {
  const source: Record<string, unknown> = report;
  const known = new Set<string>(RUN_REPORT_KEY_ORDER);
  const extra = Object.keys(source)
    .filter((key) => !known.has(key))
    .sort();
  const ordered: Record<string, unknown> = {};
  for (const key of [...RUN_REPORT_KEY_ORDER, ...extra]) {
    if (source[key] !== undefined) ordered[key] = source[key];
  }
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
