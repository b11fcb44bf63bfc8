import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Write a file so that a reader sees the old content or the new, never half of it. */
export function writeFileAtomic(file: string, content: string | Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

export function writeJson(file: string, value: unknown): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function writeJsonl(file: string, values: readonly unknown[]): void {
  writeFileAtomic(file, values.map((v) => `${JSON.stringify(v)}\n`).join(''));
}
