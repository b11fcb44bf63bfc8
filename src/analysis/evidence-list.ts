import type { EvidenceItem } from './types.js';

/** Checks keep at most this many evidence items so a huge diff cannot blow up a report. */
export const EVIDENCE_CAP = 50;

/** How many names a message spells out before it says "and N more". */
const NAMES_IN_MESSAGE = 3;

export function capEvidence(items: readonly EvidenceItem[], cap = EVIDENCE_CAP): EvidenceItem[] {
  return items.slice(0, cap);
}

/** "a, b, c and 7 more" — a message stays one readable sentence however many items there are. */
export function nameList(names: readonly string[], shown = NAMES_IN_MESSAGE): string {
  const head = names.slice(0, shown).join(', ');
  const rest = names.length - shown;
  return rest > 0 ? `${head} and ${rest} more` : head;
}

/** "1 file" / "3 files". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** Commands can be long scripts; a message or evidence item shows a bounded prefix. */
export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
