import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { z } from 'zod';
import { errorMessage, InputError } from '../errors.js';
import { openInside } from './open-inside.js';

/**
 * Size caps for what agentguard reads back. A run directory is user-controlled input (it may be
 * copied, edited or hostile): a file linked to /dev/zero or a FIFO, or one multi-gigabyte line,
 * must give one clear error, not an out-of-memory crash or a read that never ends.
 */
export const READ_LIMITS = {
  /** One JSON file (report, config snapshot, diff summary, rules). */
  json: 64 * 1024 * 1024,
  /** One JSON-lines evidence file (syscalls of a busy agent run to a few hundred MB at most). */
  jsonl: 512 * 1024 * 1024,
  /** One line of a JSON-lines file: records are small; a command's output is itself capped. */
  line: 16 * 1024 * 1024,
  /** A text file (the diff patch is cut when written; this only guards hand-made folders). */
  text: 64 * 1024 * 1024,
} as const;

const CHUNK = 1024 * 1024;
const mib = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;

/** Why a bounded read failed: `message` names the file, `detail` is the same clause without it. */
export type BoundedReadError = {
  /** `link`: a symbolic link where a reader `within` a folder follows none. */
  code: 'missing' | 'unreadable' | 'not-a-file' | 'link' | 'too-big';
  message: string;
  detail: string;
};

/**
 * Open `file` for reading without blocking (a FIFO would otherwise wait for a writer), refuse
 * anything that is not a regular file, and hand the descriptor to `use`. With `within` (a folder a
 * user or an agent controls: a run folder, a clone), no symbolic link below that folder is followed
 * (open-inside.ts). The error is a clause naming the file ("… is a character device, not a regular
 * file"), for the caller's sentence.
 */
function withRegularFile<T>(file: string, use: (fd: number, size: number) => T, within?: string): T {
  const { fd, size } = openRegular(file, within);
  try {
    return use(fd, size);
  } finally {
    closeSync(fd);
  }
}

/** The open descriptor of a regular file and its size, or a BoundedRead (the descriptor closed). */
function openRegular(file: string, within: string | undefined): { fd: number; size: number } {
  const fd = within === undefined ? openFollowing(file) : openWithin(within, file);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new BoundedRead('not-a-file', file, `is ${kindOf(st)}, not a regular file`);
    return { fd, size: st.size };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function openFollowing(file: string): number {
  try {
    return openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new MissingFile(file, 'is missing');
    throw new BoundedRead('unreadable', file, `cannot be opened (${code ?? 'error'})`);
  }
}

function openWithin(root: string, file: string): number {
  const opened = openInside(root, file);
  if (opened.ok) return opened.fd;
  const { code, detail } = opened.refusal;
  if (code === 'missing') throw new MissingFile(file, detail);
  throw new BoundedRead(
    code === 'unreadable' ? 'unreadable' : code === 'link' ? 'link' : 'not-a-file',
    file,
    detail,
  );
}

/**
 * The descriptor of a regular file (its size at open), or why not: for readers that keep their own
 * position, such as a tail of a growing file. `within` as for the bounded reads.
 */
export function openRegularFile(
  file: string,
  within?: string,
): { ok: true; fd: number; size: number } | { ok: false; error: BoundedReadError } {
  try {
    return { ok: true, ...openRegular(file, within) };
  } catch (err) {
    if (err instanceof BoundedRead) return { ok: false, error: errorOf(err) };
    throw err;
  }
}

const errorOf = (err: BoundedRead): BoundedReadError => ({
  code: err.kind,
  message: err.message,
  detail: err.detail,
});

function kindOf(st: import('node:fs').Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'a special file';
}

class BoundedRead extends Error {
  constructor(
    readonly kind: BoundedReadError['code'],
    file: string,
    readonly detail: string,
  ) {
    super(`${file} ${detail}`);
  }
}
class MissingFile extends BoundedRead {
  constructor(file: string, detail: string) {
    super('missing', file, detail);
  }
}

const tooBigDetail = (maxBytes: number) =>
  `is larger than the ${mib(maxBytes)} agentguard reads from such a file`;

/** Read at most `maxBytes` of a regular file, or throw BoundedRead naming the file and the cap. */
function readCapped(file: string, maxBytes: number, within?: string): Buffer {
  return withRegularFile(
    file,
    (fd, size) => {
      const tooBig = () => new BoundedRead('too-big', file, tooBigDetail(maxBytes));
      if (size > maxBytes) throw tooBig();
      // The size can change under us (or lie, for /proc files): count what is actually read.
      const chunks: Buffer[] = [];
      let total = 0;
      for (;;) {
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
        const n = readSync(fd, buf, 0, buf.length, null);
        if (n === 0) break;
        total += n;
        if (total > maxBytes) throw tooBig();
        chunks.push(n === buf.length ? buf : buf.subarray(0, n));
      }
      return Buffer.concat(chunks, total);
    },
    within,
  );
}

/**
 * A text file read with a size cap, refusing devices, FIFOs and folders (and, `within` a folder,
 * any symbolic link below it). Returns the text, or a one-clause problem naming the file (for
 * loaders with their own error type).
 */
export function readTextFile(
  file: string,
  maxBytes: number,
  within?: string,
): { ok: true; text: string } | { ok: false; error: BoundedReadError } {
  try {
    return { ok: true, text: readCapped(file, maxBytes, within).toString('utf8') };
  } catch (err) {
    if (err instanceof BoundedRead) return { ok: false, error: errorOf(err) };
    throw err;
  }
}

function inputError(err: unknown, fix: string): never {
  if (err instanceof MissingFile) throw new InputError(`${err.message}. Fix: ${fix}.`);
  if (err instanceof BoundedRead) {
    const how =
      err.kind === 'unreadable'
        ? 'check its permissions'
        : 'replace it with the file the run wrote, or re-run the task';
    throw new InputError(`${err.message}. Fix: ${how}.`);
  }
  throw err;
}

/** The bytes of an evidence file, bounded; a missing, special or oversized file is an InputError naming it. */
export function readEvidenceBytes(
  file: string,
  opts: { fix?: string; maxBytes?: number; within?: string } = {},
): Buffer {
  try {
    return readCapped(file, opts.maxBytes ?? READ_LIMITS.text, opts.within);
  } catch (err) {
    return inputError(err, opts.fix ?? 'the run directory is incomplete; re-run the task');
  }
}

/** A text evidence file, bounded; a missing, special or oversized file is an InputError naming it. */
export function readEvidenceText(
  file: string,
  opts: { fix?: string; maxBytes?: number; within?: string } = {},
): string {
  return readEvidenceBytes(file, opts).toString('utf8');
}

/** Whether `file` is absent (as opposed to present but unreadable, which is an error). */
export function isMissing(file: string, within?: string): boolean {
  try {
    withRegularFile(file, () => undefined, within);
    return false;
  } catch (err) {
    return err instanceof MissingFile;
  }
}

/** Parse a JSON evidence file; a missing, corrupt or (with a schema) mis-shaped file is an InputError naming it. */
export function readJson<T>(
  file: string,
  fix = 'the run directory is incomplete; re-run the task',
  schema?: z.ZodType<T>,
  within?: string,
): T {
  const text = readEvidenceText(file, { fix, maxBytes: READ_LIMITS.json, within });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${file} is not valid JSON (${errorMessage(err)}). Fix: ${fix}.`);
  }
  if (!schema) return value as T;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InputError(`${file}: ${describeIssue(parsed.error)}. Fix: ${fix}.`);
  return parsed.data;
}

/**
 * Parse a JSON-lines evidence file line by line, in bounded memory: the error names the file and
 * the line that is corrupt, too long, or (with a schema) not a record of the expected shape.
 */
export function readJsonl<T>(
  file: string,
  opts: { optional?: boolean; fix?: string; schema?: z.ZodType<T>; within?: string } = {},
): T[] {
  const fix = opts.fix ?? 'the run directory is corrupt; re-run the task';
  const out: T[] = [];
  let lineNo = 0;
  const take = (line: string) => {
    lineNo++;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new InputError(`${file}: line ${lineNo} is not valid JSON. Fix: ${fix}.`);
    }
    if (!opts.schema) {
      out.push(value as T);
      return;
    }
    const parsed = opts.schema.safeParse(value);
    if (!parsed.success)
      throw new InputError(`${file}: line ${lineNo} ${describeIssue(parsed.error)}. Fix: ${fix}.`);
    out.push(parsed.data);
  };
  try {
    withRegularFile(
      file,
      (fd, size) => {
        if (size > READ_LIMITS.jsonl) throw new BoundedRead('too-big', file, tooBigDetail(READ_LIMITS.jsonl));
        const buf = Buffer.allocUnsafe(CHUNK);
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        let total = 0;
        for (;;) {
          const n = readSync(fd, buf, 0, buf.length, null);
          if (n === 0) break;
          total += n;
          if (total > READ_LIMITS.jsonl)
            throw new BoundedRead('too-big', file, tooBigDetail(READ_LIMITS.jsonl));
          let start = 0;
          for (let nl = buf.indexOf(10, 0); nl !== -1 && nl < n; nl = buf.indexOf(10, start)) {
            if (pendingBytes === 0) take(buf.toString('utf8', start, nl));
            else {
              const piece = buf.subarray(start, nl);
              take(Buffer.concat([...pending, piece], pendingBytes + piece.length).toString('utf8'));
            }
            pending = [];
            pendingBytes = 0;
            start = nl + 1;
          }
          if (start < n) {
            pending.push(Buffer.from(buf.subarray(start, n)));
            pendingBytes += n - start;
            if (pendingBytes > READ_LIMITS.line)
              throw new InputError(
                `${file}: line ${lineNo + 1} is longer than the ${mib(READ_LIMITS.line)} agentguard reads as one record. Fix: ${fix}.`,
              );
          }
        }
        if (pendingBytes > 0) take(Buffer.concat(pending, pendingBytes).toString('utf8'));
      },
      opts.within,
    );
  } catch (err) {
    if (err instanceof MissingFile && opts.optional) return [];
    return inputError(err, fix);
  }
  return out;
}

/** "field 'addr.port' must be number, not string", from the first zod issue. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'does not have the expected shape';
  const field = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p))).join('.');
  const at = field ? `field '${field.replace(/\.\[/g, '[')}'` : 'the record';
  const received = /received (\w+)/.exec(issue.message)?.[1];
  if (issue.code === 'invalid_type') {
    return received === 'undefined'
      ? `lacks the ${at}`
      : `${at} must be ${issue.expected}, not ${received ?? 'something else'}`;
  }
  return `${at} is invalid (${issue.message.split('\n')[0]})`;
}
