import { posix } from 'node:path';
import {
  KEY_CHUNK,
  MAX_CHUNKS,
  MAX_STRING_BYTES,
  NAME_CHUNKS,
  WALK_ANCESTOR,
  WALK_INCOMPLETE,
  WALK_NONE,
} from './record-format.js';
import { bytesToText } from './record-parser.js';

export type Text = { text: string; truncated: boolean };

/**
 * The string a probe sent in `slot`, its chunks joined. A chunk counts only if the one before it
 * came back full; a full last chunk, or a missing next one, means the string was cut.
 */
export function joinChunks(
  parts: ReadonlyMap<number, Buffer>,
  slot: number,
  maxChunks = MAX_CHUNKS,
): Text | undefined {
  const first = parts.get(slot);
  if (!first) return undefined;
  const chunks = [first];
  let truncated = false;
  for (let chunk = 1; ; chunk++) {
    const last = chunks[chunks.length - 1] as Buffer;
    if (last.length < MAX_STRING_BYTES) break;
    const next = chunk < maxChunks ? parts.get(chunk * KEY_CHUNK + slot) : undefined;
    if (!next) {
      truncated = true;
      break;
    }
    chunks.push(next);
  }
  return { text: bytesToText(Buffer.concat(chunks)), truncated };
}

/**
 * The directory a walk sent: components leaf first from `slot` (an empty one per mount crossing),
 * on top of the root, or of a directory an earlier walk gave (`known` looks it up by id). A walk
 * that hit its depth limit, or stops at a directory we never got, gives `…/tail` — not absolute,
 * so no rule mistakes it for a real location — and is marked truncated, as is one with a
 * component lost on the way.
 */
export function walkedDirectory(
  parts: ReadonlyMap<number, Buffer>,
  slot: number,
  walk: number,
  known: (id: number) => string | undefined,
): Text | undefined {
  if (walk === WALK_NONE) return undefined;
  let head = '';
  let steps = walk;
  let truncated = false;
  if (walk >= WALK_ANCESTOR) {
    steps = walk % WALK_ANCESTOR;
    const ancestor = known(Math.floor(walk / WALK_ANCESTOR) - 1);
    if (ancestor === undefined) truncated = true;
    head = ancestor === undefined ? '…' : ancestor === '/' ? '' : ancestor;
  } else if (walk >= WALK_INCOMPLETE) {
    steps = walk - WALK_INCOMPLETE;
    head = '…';
    truncated = true;
  }
  const names: string[] = [];
  for (let step = 0; step < steps; step++) {
    const name = joinChunks(parts, slot + step, NAME_CHUNKS);
    if (!name) truncated = true;
    else if (name.text !== '') names.push(name.text);
    if (name?.truncated) truncated = true;
  }
  const tail = names.reverse().join('/');
  if (head === '…') return { text: tail ? `…/${tail}` : '…', truncated };
  return { text: tail ? `${head}/${tail}` : head || '/', truncated };
}

/** `path` made absolute against `base` and normalised (`.`, `..` and `//` resolved lexically). */
export function resolveAgainst(base: string | undefined, path: string): string {
  if (path.startsWith('/')) return posix.resolve(path);
  if (base === undefined) return path;
  if (!base.startsWith('/')) return posix.normalize(posix.join(base, path));
  return posix.resolve(base, path);
}
