import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { baseRedactor, type Redactor } from './redact.js';

/**
 * Write a file so that a reader sees the old content or the new, never half of it. Bytes go out
 * exactly as given: use it for what the agent itself consumes (its prompt, its config files) and
 * for binary data; artifacts about a run go through the redacting writers below.
 */
export function writeFileAtomic(file: string, content: string | Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

/** A text artifact (report, patch, log), redacted; a Buffer is binary and passes through. */
export function writeText(file: string, content: string | Buffer, redactor: Redactor = baseRedactor): void {
  writeFileAtomic(file, typeof content === 'string' ? redactor.text(content) : content);
}

export function writeJson(file: string, value: unknown, redactor: Redactor = baseRedactor): void {
  writeFileAtomic(file, `${JSON.stringify(redactor.value(value), null, 2)}\n`);
}

export function writeJsonl(
  file: string,
  values: readonly unknown[],
  redactor: Redactor = baseRedactor,
): void {
  writeFileAtomic(file, values.map((v) => `${JSON.stringify(redactor.value(v))}\n`).join(''));
}

/** Append one record to a JSON-lines log as it happens (commands, timeline), redacted. */
export function appendJsonl(file: string, value: unknown, redactor: Redactor = baseRedactor): void {
  appendFileSync(file, `${JSON.stringify(redactor.value(value))}\n`);
}
