import type { Block, Inline } from './types.js';

/** Rows shown per table (and alerts per page) before "…and N more". */
export const ROW_LIMIT = 50;

export function paragraph(...content: Inline[]): Block {
  return { kind: 'paragraph', content: content.filter((part) => part !== '') };
}

/** Pieces of text put one after another with `separator` between them. */
export function joined(parts: readonly Inline[][], separator: string): Inline[] {
  return parts.flatMap((part, i) => (i === 0 ? part : [separator, ...part]));
}

/** "… N earlier lines left out" for a tail, "… N more lines left out" for a head. */
export function omittedNote(omitted: number, cut: 'before' | 'after' | undefined): string {
  if (omitted <= 0) return '';
  const which = cut === 'after' ? 'more' : 'earlier';
  return `… ${omitted} ${which} line${omitted === 1 ? '' : 's'} left out`;
}
