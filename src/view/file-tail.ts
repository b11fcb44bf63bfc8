import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** The most one read() takes from a file; the next poll takes the rest. */
const CHUNK_BYTES = 256 * 1024;
/** A line longer than this is not shown (a runaway detail); the reader says so and skips it. */
export const MAX_LINE_BYTES = 64 * 1024;

export type TailRead = { lines: string[]; skipped: number };

/**
 * Reads a JSON-lines file that another process appends to, from where it last stopped: only whole
 * lines, at most CHUNK_BYTES a call, never holding more than one line's worth of a partial line.
 * A file that is missing is simply empty for now; one that shrank (replaced) is read again from 0.
 */
export class FileTail {
  private offset = 0;
  private partial: Buffer = Buffer.alloc(0);
  /** Inside a line too long to keep: drop bytes until its newline. */
  private discarding = false;

  constructor(readonly file: string) {}

  read(): TailRead {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return { lines: [], skipped: 0 };
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        this.offset = 0;
        this.partial = Buffer.alloc(0);
        this.discarding = false;
      }
      const want = Math.min(CHUNK_BYTES, size - this.offset);
      if (want <= 0) return { lines: [], skipped: 0 };
      const buf = Buffer.alloc(want);
      const got = readSync(fd, buf, 0, want, this.offset);
      this.offset += got;
      return this.split(buf.subarray(0, got));
    } finally {
      closeSync(fd);
    }
  }

  /** Whether the last read stopped short of the end (call read again soon). */
  behind(): boolean {
    try {
      const fd = openSync(this.file, 'r');
      try {
        return fstatSync(fd).size > this.offset;
      } finally {
        closeSync(fd);
      }
    } catch {
      return false;
    }
  }

  private split(chunk: Buffer): TailRead {
    const lines: string[] = [];
    let skipped = 0;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        this.partial = Buffer.alloc(0);
        continue;
      }
      const line = this.partial.length > 0 ? Buffer.concat([this.partial, piece]) : piece;
      this.partial = Buffer.alloc(0);
      if (line.length > MAX_LINE_BYTES) skipped++;
      else if (line.length > 0) lines.push(line.toString('utf8'));
    }
    const rest = chunk.subarray(start);
    if (this.discarding) return { lines, skipped };
    if (this.partial.length + rest.length > MAX_LINE_BYTES) {
      this.discarding = true;
      this.partial = Buffer.alloc(0);
      skipped++;
    } else if (rest.length > 0) {
      this.partial = Buffer.concat([this.partial, rest]);
    }
    return { lines, skipped };
  }
}
