/** The command line itself is wrong (an unknown command or action): one sentence with the fix, exit 2. */
export class UsageError extends Error {}

/**
 * An unknown command or action: says so, suggests the closest known one when the typing was close
 * (`runn` → `run`, `reports lst` → `reports list`), then the fix. `command` is the parent of an
 * action (`reports`), empty for a top-level command; `rest` what followed the action.
 */
export function notACommand(opts: {
  command?: string;
  typed: string;
  known: readonly string[];
  fix: string;
  rest?: readonly string[];
}): UsageError {
  const prefix = opts.command ? `${opts.command} ` : '';
  const shown = [opts.typed, ...(opts.rest ?? [])].join(' ');
  const guess = opts.known.includes(opts.typed) ? null : closest(opts.typed, opts.known);
  const hint = guess === null ? '' : ` Did you mean '${prefix}${guess}'?`;
  return new UsageError(`'${prefix}${shown}' is not a command.${hint} Fix: ${opts.fix}`);
}

/** The known word within two edits (or the only one it begins), else null. */
export function closest(typed: string, known: readonly string[]): string | null {
  const word = typed.toLowerCase();
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    const distance = editDistance(word, name.toLowerCase());
    if (
      distance <= Math.min(2, Math.max(1, Math.floor(name.length / 3))) &&
      (!best || distance < best.distance)
    )
      best = { name, distance };
  }
  if (best) return best.name;
  const prefixed = word.length >= 3 ? known.filter((name) => name.startsWith(word)) : [];
  return prefixed.length === 1 ? (prefixed[0] ?? null) : null;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
