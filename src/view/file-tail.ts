import { closeSync, readSync } from 'node:fs';
import { openRegularFile } from '../evidence/read.js';

/** The most one read() takes from a file; the next poll takes the rest. */
const CHUNK_BYTES = 256 * 1024;
/** A line longer than this is not shown (a runaway detail); the reader says so and skips it. */
export const MAX_LINE_BYTES = 64 * 1024;

/** `refused`: why the file is not read at all (a link, a FIFO, a device), as a clause without its name. */
export type TailRead = { lines: string[]; skipped: number; refused?: string };

/**
 * Reads a JSON-lines file that another process appends to, from where it last stopped: only whole
 * lines, at most CHUNK_BYTES a call, never holding more than one line's worth of a partial line.
 * A file that is missing is simply empty for now; one that shrank (replaced) is read again from 0.
 * The file lies in a folder someone else writes (`root`, a run folder): it is opened without
 * following any link below `root` and without blocking, and only a regular file is read.
 */
export class FileTail {
  private offset = 0;
  private partial: Buffer = Buffer.alloc(0);
  /** Inside a line too long to keep: drop bytes until its newline. */
  private discarding = false;

  constructor(
    readonly file: string,
    private readonly root: string,
  ) {}

  read(): TailRead {
    const opened = openRegularFile(this.file, this.root);
    if (!opened.ok) {
      if (opened.error.code === 'missing') return { lines: [], skipped: 0 };
      return { lines: [], skipped: 0, refused: opened.error.detail };
    }
    const { fd, size } = opened;
    try {
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
    const opened = openRegularFile(this.file, this.root);
    if (!opened.ok) return false;
    closeSync(opened.fd);
    return opened.size > this.offset;
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
