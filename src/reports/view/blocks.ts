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
