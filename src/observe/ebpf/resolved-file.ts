import type { SysEvent } from '../../evidence/types.js';
import { throughDescriptor, userDev } from '../resolved-path.js';
import { joinChunks, resolveAgainst, type Text } from './path-parts.js';
import { NAME_CHUNKS, SLOT_RESOLVED_NAME, WALK_INCOMPLETE } from './record-format.js';
import type { CallRecord } from './record-parser.js';

/** What the collector says the kernel resolved a path to (record-format.ts), as event fields. */

/** The inode and device of the file the kernel resolved, when the collector sent them. */
export function identity(raw: CallRecord): Pick<SysEvent, 'ino' | 'dev'> {
  return raw.ino > 0 ? { ino: raw.ino, dev: userDev(raw.dev) } : {};
}

/**
 * The file an open's descriptor holds: its directory (the walk in SLOT_WALK2) and its name. An
 * empty name means the walk is the file itself (a bind-mounted file); a walk that ended before
 * its first step found a file outside the tree (a pipe, socket or memfd): no path.
 */
export function openedFile(
  parts: ReadonlyMap<number, Buffer>,
  dir: Text | undefined,
  walk: number,
): Text | undefined {
  if (!dir || walk === WALK_INCOMPLETE) return undefined;
  const name = joinChunks(parts, SLOT_RESOLVED_NAME, NAME_CHUNKS);
  if (!name) return { text: '…', truncated: true };
  const seen = { ...dir, text: withinSandboxRoot(dir.text) };
  if (name.text === '') return seen;
  return { text: resolveAgainst(seen.text, name.text), truncated: dir.truncated || name.truncated };
}

/**
 * bwrap builds the sandbox's root at /newroot of a tmpfs of its own and changes root into it; a walk
 * that reached that tmpfs's top (seen once, under load, for a file pytest wrote in the test phase)
 * names the file as /newroot/… where the process sees it at /…. Nothing else can be there: the
 * sandbox's top level is root-owned and holds only the folders it shows.
 */
export function withinSandboxRoot(dir: string): string {
  return dir === '/newroot' ? '/' : dir.startsWith('/newroot/') ? dir.slice('/newroot'.length) : dir;
}

/**
 * What an exec through a descriptor ran: the descriptor's own file (its name sent) or the rest of
 * the written path (`/dev/fd/N/rest`, as the kernel names an execveat) in the descriptor's directory.
 */
export function execThrough(
  parts: ReadonlyMap<number, Buffer>,
  dir: Text,
  walk: number,
  written: string,
): Text | undefined {
  if (joinChunks(parts, SLOT_RESOLVED_NAME, NAME_CHUNKS)) return openedFile(parts, dir, walk);
  const rest = throughDescriptor(written)?.rest;
  if (rest === undefined || walk === WALK_INCOMPLETE) return undefined;
  return { text: resolveAgainst(dir.text, rest.slice(1)), truncated: dir.truncated };
}
