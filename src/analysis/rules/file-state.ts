import { posix } from 'node:path';
import type { SysEvent } from '../../evidence/types.js';

/** The event that last put content at a path. */
export type WriteRecord = { pid: number; seq: number; ts: number; syscall: string };

const RENAMES = new Set(['rename', 'renameat', 'renameat2']);
const LINKS = new Set(['link', 'linkat']);
const SYMLINKS = new Set(['symlink', 'symlinkat']);
const REMOVES = new Set(['unlink', 'unlinkat', 'rmdir']);
const MAX_HOPS = 8;

/** The syscall name of a change found in the final state rather than in a call (final-state.ts). */
export const FINAL_STATE = 'final-state';

/** Does this write-meta call name its changed path in path2 (rename, link, symlink)? */
export function changesPath2(syscall: string): boolean {
  return RENAMES.has(syscall) || LINKS.has(syscall) || SYMLINKS.has(syscall);
}

export function isRename(syscall: string): boolean {
  return RENAMES.has(syscall);
}

/** Acts on the link itself rather than what it points to (a change found in the final state is at its own path). */
export function actsOnLink(syscall: string): boolean {
  return REMOVES.has(syscall) || syscall === FINAL_STATE;
}

/**
 * Files the run created or wrote, and symlinks it made, remembered across the stream: so that an
 * exec of a file written earlier, or a read through a link the run planted, is recognised.
 */
export class FileState {
  readonly #written = new Map<string, WriteRecord>();
  readonly #links = new Map<string, string>();
  /** The names of one file the run linked (hard links), each mapped to the shared set. */
  readonly #names = new Map<string, Set<string>>();

  #forget(path: string): void {
    this.#names.get(path)?.delete(path);
    this.#names.delete(path);
  }
  readonly #changed = new Map<string, WriteRecord>();

  /** The write that last put content at `path` (after resolving run-created symlinks). */
  writerOf(path: string): WriteRecord | undefined {
    return this.#written.get(path) ?? this.#written.get(this.resolve(path));
  }

  /**
   * The call that last changed what is at `path`: wrote it, or put a name there (rename, link,
   * symlink), removed it, or changed its mode or owner. The final state's changes are attributed to it.
   */
  lastChangeOf(path: string): WriteRecord | undefined {
    return this.#changed.get(path) ?? this.#changed.get(this.resolve(path));
  }

  /** Whether the run wrote a file anywhere below `dir` (run-created symlinks resolved), by a write `accept` takes. */
  wroteUnder(dir: string, accept: (write: WriteRecord) => boolean = () => true): boolean {
    const resolved = this.resolve(dir);
    const prefixes = [dir, resolved].map((d) => (d.endsWith('/') ? d : `${d}/`));
    for (const [path, write] of this.#written)
      if (prefixes.some((prefix) => path.startsWith(prefix)) && accept(write)) return true;
    return false;
  }

  /** Follows run-created symlinks (the path itself, then its parent folders) a few hops. */
  resolve(path: string): string {
    if (this.#links.size === 0) return path;
    let current = path;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      const next = this.#step(current);
      if (next === undefined) return current;
      current = next;
    }
    return current;
  }

  #step(path: string): string | undefined {
    const direct = this.#links.get(path);
    if (direct !== undefined) return direct;
    for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) {
      const dir = this.#links.get(path.slice(0, i));
      if (dir !== undefined) return posix.join(dir, path.slice(i));
    }
    return undefined;
  }

  /** Updates the state after an event has been matched. */
  observe(e: SysEvent): void {
    if ((e.result ?? 0) < 0 || e.path === undefined) return;
    const record = (): WriteRecord => ({ pid: e.pid, seq: e.seq, ts: e.ts, syscall: e.syscall });
    if (e.kind === 'open') {
      if (e.access === 'write' || e.access === 'create') {
        const at = this.resolve(e.path);
        // One file under every name the run gave it: a write through a hard link writes them all.
        for (const name of this.#names.get(at) ?? [at]) this.#written.set(name, record());
        this.#changed.set(at, record());
      }
      return;
    }
    if (e.kind !== 'write-meta') return;
    const { syscall, path, path2 } = e;
    const changed = changesPath2(syscall) ? path2 : REMOVES.has(syscall) ? path : this.resolve(path);
    if (changed !== undefined) this.#changed.set(changed, record());
    if (RENAMES.has(syscall)) this.#changed.set(path, record());
    if (RENAMES.has(syscall) && path2 !== undefined) {
      this.#forget(path2);
      const names = this.#names.get(path);
      if (names) {
        this.#forget(path);
        names.add(path2);
        for (const name of names) this.#names.set(name, names);
      }
      this.#written.set(path2, this.#written.get(path) ?? record());
      this.#written.delete(path);
      const link = this.#links.get(path);
      this.#links.delete(path2);
      if (link !== undefined) {
        this.#links.delete(path);
        this.#links.set(path2, link);
      }
    } else if (LINKS.has(syscall) && path2 !== undefined) {
      const source = this.#written.get(path);
      if (source) this.#written.set(path2, source);
      const names = this.#names.get(path) ?? new Set([path]);
      names.add(path2);
      for (const name of names) this.#names.set(name, names);
    } else if (SYMLINKS.has(syscall) && path2 !== undefined) {
      this.#links.set(path2, path);
    } else if (REMOVES.has(syscall)) {
      this.#written.delete(path);
      this.#links.delete(path);
      this.#forget(path);
    } else if (syscall === 'truncate') {
      this.#written.set(this.resolve(path), record());
    }
  }
}
