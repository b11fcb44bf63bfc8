import { DescriptorTable } from '../resolved-path.js';

/**
 * The processes the parser has seen, keyed by thread id. Threads of one process share one record,
 * so events carry the process id (thread-group id), as the kernel's `pid` tracepoint field does.
 */
export type ProcessState = {
  pid: number;
  ppid: number;
  /** Path of the last successful execve; inherited across fork. */
  exe: string;
  /** Shared between processes created with CLONE_FS (and between threads). */
  cwd: { path: string };
  tids: Set<number>;
  /** Descriptors that memfd_create returned (`memfd:NAME`), inherited across fork, to name an exec of /proc/self/fd/N. */
  memfds: Map<number, string>;
  /** What its descriptors hold, from the calls that returned them (shared under CLONE_FILES). */
  files: DescriptorTable;
};

/** How a clone-family call created a thread id. */
export type CloneOrigin = { parentTid: number; flags: Set<string> };

export class ProcessTable {
  private readonly byTid = new Map<number, ProcessState>();

  get(tid: number): ProcessState | undefined {
    return this.byTid.get(tid);
  }

  /** A process whose parent was not traced (the root, or one that escaped the fork record). */
  addOrphan(tid: number, cwd: string): ProcessState {
    const proc: ProcessState = {
      pid: tid,
      ppid: 0,
      exe: '',
      cwd: { path: cwd },
      tids: new Set([tid]),
      memfds: new Map(),
      files: new DescriptorTable(),
    };
    this.byTid.set(tid, proc);
    return proc;
  }

  /** Registers `tid` as created by `parent`; returns the new process, or null when it is a thread. */
  addChild(parent: ProcessState, tid: number, flags: Set<string>): ProcessState | null {
    if (flags.has('CLONE_THREAD')) {
      parent.tids.add(tid);
      this.byTid.set(tid, parent);
      return null;
    }
    const proc: ProcessState = {
      pid: tid,
      // CLONE_PARENT makes the new process a sibling of its creator.
      ppid: flags.has('CLONE_PARENT') ? parent.ppid : parent.pid,
      exe: parent.exe,
      cwd: flags.has('CLONE_FS') ? parent.cwd : { path: parent.cwd.path },
      tids: new Set([tid]),
      memfds: new Map(parent.memfds),
      files: flags.has('CLONE_FILES') ? parent.files : new DescriptorTable(parent.files),
    };
    this.byTid.set(tid, proc);
    return proc;
  }

  /** Makes `tid` an alias of the same process as `otherTid` (execve from a non-leader thread). */
  alias(tid: number, proc: ProcessState): void {
    proc.tids.add(tid);
    this.byTid.set(tid, proc);
  }

  /** Forgets one thread; when it is the process itself, forgets every thread of the process. */
  remove(tid: number): void {
    const proc = this.byTid.get(tid);
    if (!proc) return;
    const gone = tid === proc.pid ? [...proc.tids] : [tid];
    for (const t of gone) {
      proc.tids.delete(t);
      if (this.byTid.get(t) === proc) this.byTid.delete(t);
    }
  }
}
