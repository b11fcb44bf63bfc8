import type { SysEvent } from '../../evidence/types.js';

/** The key of a file's identity: its device and inode as stat() gives them. */
export function fileKey(dev: number, ino: number): string {
  return `${dev}:${ino}`;
}

/**
 * The event with the path of the known file its identity names (a canary), whatever path, hard
 * link or bind mount reached it; what it resolved to stays in `path_as_written`. The same object
 * when the tracer gave no identity or it names no known file.
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
