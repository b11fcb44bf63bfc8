import { type FileHandle, open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

const CHUNK_BYTES = 1 << 20;

/**
 * Reads a growing log file from where it left off and hands out complete lines. The file may not
 * exist yet (strace creates it after the spawn); that is not an error.
 */
export class LogTail {
  private handle: FileHandle | undefined;
  private offset = 0;
  private partial = '';
  private readonly decoder = new StringDecoder('utf8');
  private readonly buffer = Buffer.alloc(CHUNK_BYTES);

  constructor(
    private readonly file: string,
    private readonly onLine: (line: string) => void,
  ) {}

  /** Reads everything written so far; returns false while the file does not exist. */
  async poll(): Promise<boolean> {
    if (!this.handle) {
      try {
        this.handle = await open(this.file, 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    }
    for (;;) {
      const { bytesRead } = await this.handle.read(this.buffer, 0, CHUNK_BYTES, this.offset);
      if (bytesRead === 0) return true;
      this.offset += bytesRead;
      this.split(this.decoder.write(this.buffer.subarray(0, bytesRead)));
    }
  }

  /** Hands out a last line that had no newline (the writer was killed mid-line) and closes the file. */
  async close(): Promise<void> {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest !== '') this.onLine(rest);
    await this.handle?.close();
    this.handle = undefined;
  }

  private split(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.onLine(line);
  }
}
