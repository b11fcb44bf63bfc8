import { posix } from 'node:path';

/**
 * Which path an event is judged by, given the path a process wrote and the one the kernel
 * resolved (the file the returned descriptor holds, or the directory of a descriptor a path went
 * through). Both tracers decide here, so that they agree.
 *
 * The resolved path wins, and the written one is kept in `path_as_written`, unless the kernel gave
 * no path in the file tree (a pipe, socket or memfd: `pipe:[…]`, `/memfd:…`), or the written path is
 * the process's own procfs entry (`/proc/self/…` resolves to `/proc/<pid>/…`, which says less).
 * `written` is the written path made absolute and normal; `literal`, the text itself.
 */
export function judgedPath(
  written: string | undefined,
  resolved: string | undefined,
  literal?: string,
): { path?: string; path_as_written?: string } {
  if (written === undefined) return resolved === undefined || !inTree(resolved) ? {} : { path: resolved };
  if (resolved === undefined || resolved === written || !inTree(resolved)) return { path: written };
  if (/^\/proc\/(?:self|thread-self)(?:\/|$)/.test(written) && /^\/proc\/\d+(?:\/|$)/.test(resolved))
    return { path: written };
  // An absolute path is kept letter for letter (`/tmp/l/../x`, whose lexical reading misleads).
  return { path: resolved, path_as_written: literal?.startsWith('/') ? literal : written };
}

/** An absolute path of the file tree; not `/memfd:NAME` (strace's name for a memfd). */
function inTree(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('/memfd:');
}

/**
 * The dev_t the kernel stores (major << 20 | minor) as stat() gives it to user space
 * (new_encode_dev), so a device the tracer recorded compares with `fs.statSync(file).dev`.
 */
export function userDev(kernelDev: number): number {
  const major = Math.floor(kernelDev / 2 ** 20);
  const minor = kernelDev % 2 ** 20;
  return (minor & 0xff) + major * 256 + Math.floor(minor / 256) * 2 ** 20;
}

const DESCRIPTOR_PATH = /^\/(?:dev\/fd|proc\/(self|thread-self|\d+)\/fd)\/(\d+)(\/.*)?$/s;

/**
 * A path that goes through one of the caller's descriptors: `/dev/fd/N…`, `/proc/self/fd/N…`,
 * `/proc/thread-self/fd/N…`, or `/proc/<pid>/fd/N…` when `<pid>` is `self` (the caller's own pid as
 * the path names it). `rest` is what follows N ('' for the descriptor itself).
 */
export function throughDescriptor(path: string, self?: number): { fd: number; rest: string } | null {
  const m = DESCRIPTOR_PATH.exec(path);
  if (!m) return null;
  if (m[1] !== undefined && /^\d+$/.test(m[1]) && Number(m[1]) !== self) return null;
  return { fd: Number(m[2]), rest: m[3] ?? '' };
}

type Held = { path: string; cloexec: boolean };

/**
 * The files a process's descriptors hold, as far as the tracer saw them returned (an open's
 * descriptor with the path the kernel resolved, a dup's). Shared by threads and by CLONE_FILES
 * children, copied by fork, and cut to the descriptors without close-on-exec by an exec. A
 * descriptor closed and reused by a call no tracer records (pipe, socket, fcntl) may be stale,
 * which is why it resolves only paths written through a descriptor, never replaces what the kernel
 * itself resolved.
 */
export class DescriptorTable {
  private readonly held: Map<number, Held>;

  constructor(from?: DescriptorTable) {
    this.held = new Map(from?.held);
  }

  set(fd: number, path: string, cloexec: boolean): void {
    if (fd >= 0 && path.startsWith('/')) this.held.set(fd, { path, cloexec });
    else this.held.delete(fd);
  }

  /** After a successful exec: close-on-exec descriptors are gone. */
  exec(): void {
    for (const [fd, held] of this.held) if (held.cloexec) this.held.delete(fd);
  }

  /** `path` with its descriptor prefix replaced by the file the descriptor holds, if known. */
  resolve(path: string, self?: number): string | undefined {
    const through = throughDescriptor(path, self);
    if (!through) return undefined;
    const held = this.held.get(through.fd);
    if (!held) return undefined;
    return through.rest === '' ? held.path : posix.resolve(held.path, through.rest.slice(1));
  }
}
