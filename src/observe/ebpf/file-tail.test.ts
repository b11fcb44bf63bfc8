import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileTail } from './file-tail.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tailOf(): { file: string; lines: [string, boolean][]; tail: FileTail } {
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-tail-'));
  dirs.push(dir);
  const file = path.join(dir, 'raw.jsonl');
  writeFileSync(file, '');
  const lines: [string, boolean][] = [];
  return { file, lines, tail: new FileTail(file, (line, complete) => lines.push([line, complete])) };
}

/** Resolves once `lines` holds `n` lines, checking as the tail delivers them. */
async function until(lines: unknown[], n: number): Promise<void> {
  while (lines.length < n) await new Promise((r) => setImmediate(r));
}

describe('FileTail', () => {
  it('reads every line written up to a closed writer, the last one written right before end', async () => {
    const { file, lines, tail } = tailOf();
    appendFileSync(file, 'one\ntw');
    await until(lines, 1);
    appendFileSync(file, 'o\n');
    await until(lines, 2);
    // Written and ended at once: no idle wait may come between, and no grace is given.
    appendFileSync(file, 'three\nfour (cut)');
    await tail.end({ writerClosed: true });
    expect(lines).toEqual([
      ['one', true],
      ['two', true],
      ['three', true],
      ['four (cut)', false],
    ]);
  });

  it('ends while idle, reading what was written before end', async () => {
    const { file, lines, tail } = tailOf();
    appendFileSync(file, 'first\n');
    await until(lines, 1);
    appendFileSync(file, 'second\n');
    await tail.end();
    expect(lines).toEqual([
      ['first', true],
      ['second', true],
    ]);
  });
});
