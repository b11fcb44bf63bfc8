import type { Check } from '../types.js';

export const CHECK_TABLE_HEADERS = ['check', 'default severity', 'config keys', 'passes when'] as const;

/** One row per check, in the given (report) order; `name` formats ids and keys (code in Markdown). */
export function checkRows(checks: readonly Check[], name = (s: string) => s): string[][] {
  return checks.map((c) => [
    name(c.id),
    c.defaultSeverity,
    c.policyKeys.length > 0 ? c.policyKeys.map(name).join(', ') : '-',
    c.doc,
  ]);
}

/**
 * The checks table of docs/config.md, generated from the checks themselves so the page cannot
 * drift from them (a test compares the two). Columns are padded as the formatter (biome) lays out
 * a Markdown table, so the pasted table stays as generated.
 */
export function renderChecksMarkdown(checks: readonly Check[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const grid = [[...CHECK_TABLE_HEADERS], ...checkRows(checks, (s) => `\`${s}\``).map((r) => r.map(cell))];
  const widths = CHECK_TABLE_HEADERS.map((_, i) => Math.max(...grid.map((r) => [...(r[i] ?? '')].length)));
  const line = (r: readonly string[]) =>
    `| ${r.map((c, i) => c + ' '.repeat((widths[i] ?? 0) - [...c].length)).join(' | ')} |`;
  const [head, ...rows] = grid;
  return [line(head ?? []), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
