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
 * drift from them (a test compares the two).
 */
export function renderChecksMarkdown(checks: readonly Check[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${CHECK_TABLE_HEADERS.join(' | ')} |`,
    `| ${CHECK_TABLE_HEADERS.map(() => '---').join(' | ')} |`,
    ...checkRows(checks, (s) => `\`${s}\``).map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}
