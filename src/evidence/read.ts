import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';

function readText(file: string, fix: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError(`${file} is missing. Fix: ${fix}.`);
    throw new InputError(`${file} cannot be read (${code ?? 'error'}). Fix: check its permissions.`);
  }
}

/** Parse a JSON evidence file; a missing or corrupt file is an InputError naming it. */
export function readJson<T>(file: string, fix = 'the run directory is incomplete; re-run the task'): T {
  const text = readText(file, fix);
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new InputError(`${file} is not valid JSON (${(err as Error).message}). Fix: ${fix}.`);
  }
}

/** Parse a JSON-lines evidence file; the error names the line that is corrupt. */
export function readJsonl<T>(file: string, opts: { optional?: boolean; fix?: string } = {}): T[] {
  const fix = opts.fix ?? 'the run directory is corrupt; re-run the task';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (opts.optional && (err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    return readText(file, fix) as never;
  }
  const out: T[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      throw new InputError(`${file}: line ${i + 1} is not valid JSON. Fix: ${fix}.`);
    }
  }
  return out;
}
