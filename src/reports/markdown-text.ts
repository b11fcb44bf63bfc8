/**
 * Text helpers for the markdown report. Everything that came from the agent's world (paths, argv,
 * messages, host names) goes through `md` or `cell` so that no value can open a table cell, a code
 * span, a link, HTML or a new line.
 */

/** Longest untrusted value shown in one place; the report is a summary, the evidence has the rest. */
export const MAX_TEXT_CHARS = 300;

// ASCII punctuation that can start or end markdown syntax inline (GFM: tables, code, emphasis,
// links, HTML, entities, strikethrough, math). Line-start-only syntax (#, -, +, 1.) cannot occur:
// untrusted text never starts a line.
const SIGNIFICANT = /[\\`*_{}[\]<>()|~&$!]/g;

// C0 controls, DEL and the Unicode line/paragraph separators; shown as escapes instead.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/g;

const NAMED_CONTROLS: Record<string, string> = { '\n': 'n', '\r': 'r', '\t': 't' };

/** Escape untrusted text for inline markdown, cut at `max` characters. */
export function md(text: string, max = MAX_TEXT_CHARS): string {
  const chars = [...text];
  const shown = chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
  return shown.replace(SIGNIFICANT, (ch) => `\\${ch}`).replace(CONTROL, (ch) => `\\\\${controlName(ch)}`);
}

function controlName(ch: string): string {
  return NAMED_CONTROLS[ch] ?? `u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Trusted text for a code span (hashes, ids we generated): backticks cannot occur, but be sure. */
export function code(text: string): string {
  return `\`${text.replace(/[`\n\r|]/g, '?')}\``;
}

/** One markdown table. Cells must already be escaped (see `md`). */
export function table(headers: string[], rows: string[][]): string[] {
  const line = (cells: string[]) => `| ${cells.map((c) => (c === '' ? ' ' : c)).join(' | ')} |`;
  return [line(headers), `|${headers.map(() => ' --- ').join('|')}|`, ...rows.map(line)];
}

/** A list cut at `limit` entries, with a closing "and N more" line. */
export function bounded<T>(items: readonly T[], limit: number): { shown: T[]; more: number } {
  return { shown: items.slice(0, limit), more: Math.max(0, items.length - limit) };
}

export function moreLine(more: number, what: string): string[] {
  return more > 0 ? ['', `…and ${more} more ${what}.`] : [];
}

/** Argv as a POSIX shell would need it typed, so argument boundaries stay visible. Escape with `md` after. */
export function shellJoin(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`))
    .join(' ');
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
