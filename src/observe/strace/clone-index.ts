import { CallJoiner } from './call-joiner.js';
import type { CloneOrigin } from './process-table.js';
import { parseCall, parseStraceLine } from './strace-line.js';
import { parseFlags } from './strace-syntax.js';
import { CLONE_CALLS } from './syscall-events.js';

export type CloneRecord = CloneOrigin & { syscall: string };

/**
 * Which thread created which, read from the whole log before the main pass. A child's first line
 * often comes before its parent's clone returns (always for vfork), so the order of lines alone
 * cannot say who the parent is.
 */
export class CloneIndex {
  private readonly byChild = new Map<number, CloneRecord[]>();

  add(child: number, record: CloneRecord): void {
    const list = this.byChild.get(child);
    if (list) list.push(record);
    else this.byChild.set(child, [record]);
  }

  /** The next creation of `child` in log order (pids can be reused within one run). */
  take(child: number): CloneRecord | undefined {
    return this.byChild.get(child)?.shift();
  }
}

/** Builds a CloneIndex line by line. */
export class CloneIndexer {
  readonly index = new CloneIndex();
  private readonly joiner = new CallJoiner();

  push(raw: string): void {
    // Cheap pre-filter: this pass only cares about clone/clone3/fork/vfork lines.
    if (!raw.includes('fork') && !raw.includes('clone')) return;
    const line = parseStraceLine(raw);
    if (!line || !('name' in line) || !CLONE_CALLS.has(line.name)) return;
    if (line.kind === 'unfinished') {
      this.joiner.begin(line.tid, line.name, line.text);
      return;
    }
    const text = line.kind === 'call' ? line.text : this.joiner.resume(line.tid, line.name, line.rest);
    const call = text === null ? null : parseCall(line.name, text);
    if (!call || call.result.value === undefined || call.result.value <= 0) return;
    const child = call.result.hostPid ?? call.result.value;
    this.index.add(child, {
      parentTid: line.tid,
      flags: cloneFlags(call.name, text ?? ''),
      syscall: call.name,
    });
  }
}

/**
 * The CLONE_* flags of a clone-family call, read from its text, which may still be unfinished
 * (fork and vfork imply theirs; clone and clone3 print `flags=` first).
 */
export function cloneFlags(name: string, text: string): Set<string> {
  if (name === 'vfork') return new Set(['CLONE_VM', 'CLONE_VFORK']);
  if (name === 'fork') return new Set();
  return parseFlags(/flags=([^,}\s)]+)/.exec(text)?.[1]);
}
