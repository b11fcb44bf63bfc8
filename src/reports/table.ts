export type TableOptions = {
  /** Per column; missing columns align left. */
  align?: readonly ('left' | 'right')[];
};

// Terminal control characters in a cell (a hostile file name, say) could move the cursor or
// recolour the screen; show them as escapes and keep each row on one line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function clean(text: string): string {
  return text.replace(CONTROL, (ch) => {
    if (ch === '\n') return '\\n';
    if (ch === '\t') return '\\t';
    if (ch === '\r') return '\\r';
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function width(text: string): number {
  return [...text].length;
}

/**
 * A plain-text table: a header row, a dashed rule, then the rows; columns as wide as their widest
 * cell, two spaces apart, no trailing spaces, no colours. Ends without a newline.
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const columns = Math.max(headers.length, ...rows.map((row) => row.length));
  const grid = [headers, ...rows].map((row) =>
    Array.from({ length: columns }, (_, i) => clean(row[i] ?? '')),
  );
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(...grid.map((row) => width(row[i] ?? ''))),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const pad = ' '.repeat((widths[i] ?? 0) - width(cell));
        return options.align?.[i] === 'right' ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  const [head = [], ...body] = grid;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
