/**
 * Text helpers for the HTML pages. Every value that came from the agent's world (paths, argv,
 * messages, host names, run ids) goes through `esc`, which makes it inert text in element content
 * and in double- or single-quoted attribute values alike.
 */

/** Longest untrusted value shown in one place; the evidence has the rest. */
export const MAX_HTML_TEXT = 300;

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

// C0 controls, DEL, line/paragraph separators and the bidirectional overrides (which can make a
// name read differently from what it is): shown as escapes instead.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const INVISIBLE = /[\u0000-\u001f\u007f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Cut `text` at `max` code points with a trailing ellipsis (keep: which end survives). */
export function truncate(text: string, max: number, keep: 'start' | 'end' = 'start'): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  return keep === 'start'
    ? `${chars.slice(0, max - 1).join('')}…`
    : `…${chars.slice(chars.length - max + 1).join('')}`;
}

/** Escape untrusted text for HTML content or a quoted attribute, cut at `max` characters. */
export function esc(text: string, max = MAX_HTML_TEXT): string {
  return truncate(text, max)
    .replace(INVISIBLE, (ch) => NAMED[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[&<>"']/g, (ch) => ENTITIES[ch] as string);
}

/** A number for SVG coordinates: one decimal, no "-0", the same text on every machine. */
export function num(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** A similarity in 0..1 as text; "–" when there was nothing to compare. */
export function ratio(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toFixed(2);
}
