import type { SysEvent } from '../../evidence/types.js';

/**
 * The one place where the rules' view of a path is made canonical. Procfs has magic links that
 * name the same file by another path: `/proc/self/root/etc/shadow` is `/etc/shadow`, and
 * `/proc/<pid>/cwd/x` is `x` in that process's working directory. A rule written for the real path
 * must match every alias, so paths are rewritten here before any rule sees them, and the event
 * keeps what the process wrote in `path_as_written`.
 *
 * Lexical only, like the tracers' own `.`/`..` handling: the file system is never consulted. The
 * root of another process is taken to be the caller's (every process of a run shares one sandbox
 * root), and a cwd alias is resolved only when that process's cwd is known.
 */
export function canonicalPath(
  path: string,
  self: number,
  cwdOf: (pid: number) => string | undefined,
): string {
  if (!path.startsWith('/') || ALREADY_CANONICAL.test(path)) return path;
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      out.pop();
      continue;
    }
    out.push(part);
    const link = procLink(out);
    if (!link) continue;
    if (link.name === 'root') {
      out.length = 0;
      continue;
    }
    const cwd = cwdOf(link.pid ?? self);
    if (cwd === undefined || !cwd.startsWith('/')) continue;
    out.length = 0;
    for (const c of cwd.split('/')) if (c !== '') out.push(c);
  }
  return `/${out.join('/')}`;
}

/** No procfs alias, no `//`, `.` or `..` component and no trailing slash: nothing to rewrite. */
const ALREADY_CANONICAL = /^(?!.*\/proc\/)(?!.*\/\/)(?!.*\/\.\.?(?:\/|$))(?!.+\/$)/s;

const PROCESS = /^(?:self|thread-self|[0-9]+)$/;

/** `proc/<process>/(root|cwd)` or `proc/<process>/task/<tid>/(root|cwd)` at the end of `parts`. */
function procLink(parts: readonly string[]): { name: 'root' | 'cwd'; pid?: number } | null {
  const name = parts[parts.length - 1];
  if ((name !== 'root' && name !== 'cwd') || parts[0] !== 'proc') return null;
  const owner = parts[1] as string;
  if (parts.length === 3 && PROCESS.test(owner)) return { name, ...processId(owner) };
  if (parts.length === 5 && PROCESS.test(owner) && parts[2] === 'task' && /^[0-9]+$/.test(parts[3] as string))
    return { name, ...processId(owner) };
  return null;
}

function processId(owner: string): { pid?: number } {
  return /^[0-9]+$/.test(owner) ? { pid: Number(owner) } : {};
}

/** `/proc/<process>/exe` (or a thread's): the program that process runs, a magic link like root and cwd. */
const EXE_LINK = /^\/proc\/(self|thread-self|[0-9]+)(?:\/task\/[0-9]+)?\/exe$/;

/**
 * The program an exec of `/proc/<process>/exe` runs: what the kernel ran, where the tracer
 * recorded it (the collector's `interpreter`, read from the new image); else the caller's own
 * program for `self`, or that process's where the table knows its pid (the tracers record host
 * pids, the sandbox's processes name theirs in its pid namespace: unknown there, left as written).
 */
function exeLink(e: SysEvent, path: string, exeOf: (pid: number) => string | undefined): string | undefined {
  const m = EXE_LINK.exec(path);
  if (!m) return undefined;
  if (e.interpreter !== undefined) return e.interpreter;
  const owner = m[1] as string;
  return exeOf(/^[0-9]+$/.test(owner) ? Number(owner) : e.pid);
}

/** The event with its paths canonical; the same object when nothing changed. */
export function canonicalEvent(
  e: SysEvent,
  cwdOf: (pid: number) => string | undefined,
  exeOf: (pid: number) => string | undefined = () => undefined,
): SysEvent {
  const exe = e.kind === 'exec' && e.path !== undefined ? exeLink(e, e.path, exeOf) : undefined;
  if (exe !== undefined) {
    // The program itself, not an interpreter the kernel started for a script.
    const { interpreter: _kernelRan, ...rest } = e;
    return { ...rest, path: exe, path_as_written: e.path_as_written ?? (e.path as string) };
  }
  const own = (pid: number) => (pid === e.pid && e.cwd !== undefined ? e.cwd : cwdOf(pid));
  const path = e.path === undefined ? undefined : canonicalPath(e.path, e.pid, own);
  const path2 = e.path2 === undefined ? undefined : canonicalPath(e.path2, e.pid, own);
  if (path === e.path && path2 === e.path2) return e;
  return {
    ...e,
    ...(path === undefined ? {} : { path }),
    ...(path2 === undefined ? {} : { path2 }),
    ...(path !== e.path && e.path_as_written === undefined ? { path_as_written: e.path } : {}),
  };
}
