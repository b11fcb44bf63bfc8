import { type FileHandle, open } from 'node:fs/promises';

const READ_SIZE = 1 << 20;

/**
 * Cuts a byte stream into lines. Lines are decoded as latin1 so that each byte stays one character
 * (see parseLine); `complete` is false for a last line that never got its newline.
 */
export class LineSplitter {
  private pending: Buffer[] = [];

  constructor(private readonly onLine: (line: string, complete: boolean) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, newline);
      const line = this.pending.length > 0 ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      this.onLine(line.toString('latin1'), true);
      start = newline + 1;
    }
    if (start < chunk.length) this.pending.push(Buffer.from(chunk.subarray(start)));
  }

  end(): void {
    if (this.pending.length === 0) return;
    const line = Buffer.concat(this.pending).toString('latin1');
    this.pending = [];
    this.onLine(line, false);
  }
}

/**
 * Every line of a finished file, in order: the one line reader of both tracers' logs. False when
 * the file does not exist (a tracer that never wrote it); other read errors throw.
 */
export async function readLines(
  path: string,
  onLine: (line: string, complete: boolean) => void,
): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  try {
    const splitter = new LineSplitter(onLine);
    const buffer = Buffer.alloc(READ_SIZE);
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      splitter.push(buffer.subarray(0, bytesRead));
    }
    splitter.end();
    return true;
  } finally {
    await handle.close();
  }
}
