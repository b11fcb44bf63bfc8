import type { SysEvent } from '../../evidence/types.js';
import { actsOnLink, changesPath2, isRename } from './file-state.js';

/** The key of a file's identity: its device and inode as stat() gives them. */
export function fileKey(dev: number, ino: number): string {
  return `${dev}:${ino}`;
}

/**
 * The event with the path of the known file its identity names (a canary, a protected file
 * recorded before the agent), whatever path, hard link, directory descriptor or bind mount reached
 * it; what it resolved to stays in `path_as_written`. The same object when the tracer gave no
 * identity or it names no known file.
 */
export function byIdentity(e: SysEvent, known: ReadonlyMap<string, string> | undefined): SysEvent {
  if (known === undefined || e.ino === undefined || e.dev === undefined) return e;
  const path = known.get(fileKey(e.dev, e.ino));
  if (path === undefined || path === e.path) return e;
  return {
    ...e,
    path,
    ...(e.path_as_written === undefined && e.path !== undefined ? { path_as_written: e.path } : {}),
  };
}

/**
 * The known files of one run, by identity, and the hard links the trace saw made to them (strace
 * records no inode: a write through `ln .git/config x` is named by the link). A file removed or
 * replaced at its own path gives up its inode, which the file system may hand to the next file
 * created (ext4 does): from then on that identity names nothing known, or an honest write to a new
 * file would be taken for the old one. A removal through an alias the trace cannot place keeps the
 * identity, and the final state (final-state.ts) judges the file anyway.
 */
export class KnownFiles {
  readonly #byKey: Map<string, string>;
  /** A hard link's path → the known file it is another name of. */
  readonly #links = new Map<string, string>();
  readonly #known: Set<string>;

  constructor(known: ReadonlyMap<string, string> | undefined) {
    this.#byKey = new Map(known ?? []);
    this.#known = new Set(this.#byKey.values());
  }

  /** The event named by the identity it carries (see byIdentity), or as the known file a hard link names. */
  name(e: SysEvent): SysEvent {
    if (this.#known.size === 0) return e;
    const named = byIdentity(e, this.#byKey);
    if (named !== e || e.path === undefined || this.#links.size === 0) return named;
    const target = this.#links.get(e.path);
    // A rename, link or unlink acts on the link's name; a chmod or truncate on the file it shares.
    if (
      target === undefined ||
      (e.kind === 'write-meta' && (changesPath2(e.syscall) || actsOnLink(e.syscall)))
    )
      return e;
    return { ...e, path: target, ...(e.path_as_written === undefined ? { path_as_written: e.path } : {}) };
  }

  /** Learns the links an event made and forgets the names and identities it freed. */
  observe(e: SysEvent): void {
    if (this.#known.size === 0 || e.kind !== 'write-meta' || (e.result ?? 0) < 0 || e.path === undefined)
      return;
    const { syscall, path, path2 } = e;
    if ((syscall === 'link' || syscall === 'linkat') && path2 !== undefined) {
      const target = this.#known.has(path) ? path : this.#links.get(path);
      if (target !== undefined) this.#links.set(path2, target);
      return;
    }
    if (isRename(syscall) && path2 !== undefined) {
      // The name renamed over is freed first; a link renamed is the same file under a third name.
      this.#free(path2);
      const moved = this.#links.get(path);
      this.#free(path);
      if (moved !== undefined) this.#links.set(path2, moved);
    } else if (syscall === 'unlink' || syscall === 'unlinkat') this.#free(path);
  }

  #free(p: string): void {
    this.#links.delete(p);
    if (!this.#known.delete(p)) return;
    // The known file's own name removed or replaced: its inode, and every link to it, are no longer it.
    for (const [key, known] of this.#byKey) if (known === p) this.#byKey.delete(key);
    for (const [link, known] of this.#links) if (known === p) this.#links.delete(link);
  }
}
