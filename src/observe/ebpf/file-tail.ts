import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { LineSplitter } from '../line-reader.js';

const TAIL_IDLE_MS = 20;
const READ_SIZE = 1 << 20;

/**
 * Follows a file another process appends to (bpftrace's stdout, the collector's per-run output),
 * line by line. A file never pushes back on its writer, as a pipe to a slow reader would; the
 * writer keeps draining the kernel's buffers whatever this process is doing.
 */
export class FileTail {
  private ending = false;
  /** The writer has closed the file (it said so, or it exited): nothing more can land in it. */
  private writerGone = false;
  /** Cuts the idle wait short when end() is called, so the last read starts at once. */
  private wake: (() => void) | null = null;
  /** Resolves once the file has been read to its end after end() was called. */
  readonly drained: Promise<void>;

  constructor(
    readonly path: string,
    private readonly onLine: (line: string, complete: boolean) => void,
  ) {
    this.drained = this.follow();
  }

  /**
   * The writer has stopped (or is about to): read what is left, then stop following. `writerClosed`
   * when the writer has closed the file or exited (the collector's DONE, bpftrace's exit): no write
   * can still be under way, so the last read needs no grace for one.
   */
  end(opts: { writerClosed?: boolean } = {}): Promise<void> {
    this.ending = true;
    if (opts.writerClosed) this.writerGone = true;
    this.wake?.();
    this.wake = null;
    return this.drained;
  }

  private idle(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async follow(): Promise<void> {
    const handle = await open(this.path, 'r');
    try {
      const splitter = new LineSplitter(this.onLine);
      const buffer = Buffer.alloc(READ_SIZE);
      let position = 0;
      let settled = false;
      for (;;) {
        // Sampled before reading, so everything written before the writer stopped is read below.
        const finished = this.ending;
        if (finished && !settled) {
          // A write the writer was in the middle of when it was stopped still lands.
          if (!this.writerGone) await sleep(TAIL_IDLE_MS);
          settled = true;
        }
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        if (bytesRead > 0) {
          position += bytesRead;
          splitter.push(buffer.subarray(0, bytesRead));
          continue;
        }
        if (finished) break;
        if (!this.ending) await this.idle(TAIL_IDLE_MS);
      }
      splitter.end();
    } finally {
      await handle.close();
    }
  }
}
