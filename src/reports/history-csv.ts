/**
 * Rows of the history index as CSV (RFC 4180 quoting), with the columns in the order given. Lines
 * end in LF, not CRLF: the CLI prints through an escaper that shows a carriage return as text.
 * Pure.
 */
export function renderCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns.map(cell).join(',')];
  for (const row of rows) lines.push(columns.map((c) => cell(row[c])).join(','));
  return `${lines.join('\n')}\n`;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = Array.isArray(value) ? value.join(';') : String(value);
  // A task name is the config author's text: a leading = + - @ would run as a formula in a spreadsheet.
  if (/^[=+\-@\t\r]/.test(text) && typeof value !== 'number') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
