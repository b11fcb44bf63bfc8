import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { InputError } from '../errors.js';

/*
 * The records of a tree bundle read from its file as a stream: gunzipped a chunk at a time, each
 * record a JSON header line, then (for a file) exactly `size` bytes of content. Nothing is ever held
 * but one header and one chunk, so a bundle of any size costs the reader the same memory; the
 * expanded bytes are counted as they come and the read stops at the limit (a gzip bomb stops there).
 */

/** Longest header line: a path and a link target of up to 4096 bytes each, and the JSON around them. */
export const HEADER_MAX_BYTES = 16 * 1024;

/** What a reader is told: each header (parsed, not yet checked), then its content chunk by chunk. */
export type RecordSink = {
  header: (value: unknown, index: number) => void;
  data: (chunk: Buffer) => void;
  /** The end of the current file's content (after its last chunk, or at once for an empty file). */
  end: () => void;
};

/**
 * Stream `file` through gunzip into `sink`, refusing a header longer than HEADER_MAX_BYTES or not
 * JSON, a size that is not a whole number, content cut short, and more than `expandedBytes` in all.
 * Resolves with the number of records.
 */
export async function readRecords(
  file: string,
  what: string,
  expandedBytes: number,
  sink: RecordSink,
): Promise<number> {
  let total = 0;
  let line: Buffer[] = [];
  let lineBytes = 0;
  let remaining = -1; // content bytes still due for the current file; -1 between records
  let index = 0;
  const refuse = (why: string) => new InputError(`${what}: bundle ${why}; not extracted.`);

  const takeHeader = (text: Buffer) => {
    let value: unknown;
    try {
      value = JSON.parse(text.toString('utf8'));
    } catch {
      throw refuse(`record ${index} is not a JSON header`);
    }
    sink.header(value, index++);
    const size = (value as { size?: unknown } | null)?.size;
    if (size === undefined) return;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
      throw refuse(`record ${index - 1} has a size that is not a whole number of bytes`);
    remaining = size;
    if (remaining === 0) {
      sink.end();
      remaining = -1;
    }
  };

  const push = (chunk: Buffer) => {
    let at = 0;
    while (at < chunk.length) {
      if (remaining > 0) {
        const n = Math.min(remaining, chunk.length - at);
        sink.data(chunk.subarray(at, at + n));
        at += n;
        remaining -= n;
        if (remaining === 0) {
          sink.end();
          remaining = -1;
        }
        continue;
      }
      const nl = chunk.indexOf(0x0a, at);
      const end = nl === -1 ? chunk.length : nl;
      lineBytes += end - at;
      if (lineBytes > HEADER_MAX_BYTES)
        throw refuse(`record ${index} has a header over ${HEADER_MAX_BYTES} bytes`);
      line.push(chunk.subarray(at, end));
      at = end;
      if (nl === -1) continue;
      at += 1;
      const text = Buffer.concat(line);
      line = [];
      lineBytes = 0;
      takeHeader(text);
    }
  };

  const input = createReadStream(file);
  const gunzip = createGunzip();
  input.pipe(gunzip);
  input.on('error', (err) => gunzip.destroy(err));
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > expandedBytes)
        throw new InputError(
          `${what}: bundle expands past ${expandedBytes} bytes; not extracted. Fix: send a smaller tree.`,
        );
      push(chunk);
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw refuse(`is not a gzip'd record stream (${(err as Error).message})`);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  if (remaining > 0) throw refuse(`is cut short inside record ${index - 1}`);
  if (lineBytes > 0) throw refuse(`ends inside the header of record ${index}`);
  return index;
}
