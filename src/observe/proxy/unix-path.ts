import { openSync } from 'node:fs';
import path from 'node:path';

/** sun_path is 108 bytes on Linux, including the terminating NUL. */
export const MAX_UNIX_PATH_BYTES = 107;

/** True when bind() and connect() take `file` as it is. */
export const fitsSunPath = (file: string) => Buffer.byteLength(file) <= MAX_UNIX_PATH_BYTES;

/**
 * `file` named through a descriptor of its folder (`/proc/self/fd/N/<name>`), which is short
 * whatever the folder's depth: how a socket in a run folder deep in a user's checkout is bound and
 * reached. Valid while `dirFd` stays open.
 */
export const throughFolder = (file: string, dirFd: number) => `/proc/self/fd/${dirFd}/${path.basename(file)}`;

const folders = new Map<string, number>();

/**
 * The name a client connects to `file` by: itself when it fits, else through its folder's
 * descriptor, opened once per folder and kept for the process's life (the bridge's).
 */
export function connectPath(file: string): string {
  if (fitsSunPath(file)) return file;
  const dir = path.dirname(file);
  let fd = folders.get(dir);
  if (fd === undefined) {
    fd = openSync(dir, 'r');
    folders.set(dir, fd);
  }
  return throughFolder(file, fd);
}
