import { MAX_EXEC_ENV } from '../../evidence/exec-env.js';
import { KEY_CHUNK, MAX_ARGV, SLOT_ARGV, SLOT_ENV, SLOT_PATH, WALK_NONE } from './record-format.js';
import type { BpfRecord, CallRecord, ExitRecord, ForkRecord, NetRecord } from './record-parser.js';
import { CODE_EXECVE, CODE_EXECVEAT } from './syscall-table.js';

/** A record carrying the strings its probe sent before it (`parts`). */
export type RawEvent = CallRecord | NetRecord | ForkRecord | ExitRecord;

type Pending = { t: number; parts: Map<number, Buffer> };

/**
 * Joins PART records to the CALL or NET record of the same probe run. The parts of one run come
 * before its record on the same CPU, so per thread at most one run is ever pending; parts left
 * behind by a record lost in the kernel are dropped and counted, never glued to the next event.
 */
export class EventAssembler {
  private readonly pending = new Map<number, Pending>();
  /** argv and environment of an exec, sent at syscall entry (from the caller's memory), waiting for the exec's record. */
  private readonly argv = new Map<number, Pending>();
  /** PART records whose event never arrived. */
  orphanParts = 0;

  push(record: BpfRecord): RawEvent | null {
    switch (record.type) {
      case 'ready':
      case 'tick':
        return null;
      case 'part': {
        if (
          (record.slot >= SLOT_ARGV && record.slot < SLOT_ARGV + MAX_ARGV) ||
          (record.slot >= SLOT_ENV && record.slot < SLOT_ENV + MAX_EXEC_ENV)
        ) {
          let args = this.argv.get(record.tid);
          if (args && args.t !== record.t) {
            this.orphanParts += args.parts.size;
            args = undefined;
          }
          if (!args) {
            args = { t: record.t, parts: new Map() };
            this.argv.set(record.tid, args);
          }
          args.parts.set(record.chunk * KEY_CHUNK + record.slot, record.bytes);
          return null;
        }
        let run = this.pending.get(record.tid);
        if (run && run.t !== record.t) {
          this.orphanParts += run.parts.size;
          run = undefined;
        }
        if (!run) {
          run = { t: record.t, parts: new Map() };
          this.pending.set(record.tid, run);
        }
        run.parts.set(record.chunk * KEY_CHUNK + record.slot, record.bytes);
        return null;
      }
      case 'call':
      case 'net': {
        const run = this.pending.get(record.tid);
        if (run) {
          this.pending.delete(record.tid);
          if (run.t === record.t) record.parts = run.parts;
          else this.orphanParts += run.parts.size;
        }
        // A head of "" with no walk is a null path pointer, not an empty path.
        if (record.type === 'call' && record.head && (record.head.length > 0 || record.walk1 !== WALK_NONE)) {
          record.parts = new Map([...(record.parts ?? []), [SLOT_PATH, record.head]]);
        }
        if (record.type === 'call' && (record.code === CODE_EXECVE || record.code === CODE_EXECVEAT)) {
          const args = this.argv.get(record.tid);
          if (args) {
            this.argv.delete(record.tid);
            record.parts = new Map([...(record.parts ?? []), ...args.parts]);
          }
        }
        return record;
      }
      case 'fork':
      case 'exit':
        return record;
    }
  }

  /** Parts still waiting when the stream ended. */
  finish(): void {
    for (const run of [...this.pending.values(), ...this.argv.values()]) this.orphanParts += run.parts.size;
    this.pending.clear();
    this.argv.clear();
  }
}
