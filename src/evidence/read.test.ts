import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJson, readJsonl, readTextFile } from './read.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ag-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};

describe('readJsonl', () => {
  const Rec = z.object({ n: z.number() });

  it('reads records across chunk boundaries, with or without a final newline', () => {
    const lines = Array.from({ length: 50_000 }, (_, n) => JSON.stringify({ n, pad: 'x'.repeat(n % 97) }));
    const f = file('many.jsonl', `${lines.join('\n')}\n\n`);
    const out = readJsonl(f, { schema: Rec });
    expect(out).toHaveLength(50_000);
    expect(out[49_999]).toEqual({ n: 49_999 });
    expect(readJsonl(file('last.jsonl', '{"n":1}\n{"n":2}'), { schema: Rec })).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('names the file and the line of a record of the wrong shape', () => {
    const f = file('bad.jsonl', '{"n":1}\n\n{"n":"two"}\n');
    expect(() => readJsonl(f, { schema: Rec })).toThrow(`${f}: line 3 field 'n' must be number, not string`);
  });

  it('refuses a line over the cap without reading the rest into memory', () => {
    const f = file('huge.jsonl', `{"n":1}\n${'a'.repeat(17 * 1024 * 1024)}\n`);
    expect(() => readJsonl(f)).toThrow(/line 2 is longer than the 16 MiB/);
  });

  it('refuses a device, and an optional file that is missing reads as empty', () => {
    const link = path.join(dir, 'zero.jsonl');
    symlinkSync('/dev/zero', link);
    expect(() => readJsonl(link, { optional: true })).toThrow(/character device, not a regular file/);
    expect(readJsonl(path.join(dir, 'absent.jsonl'), { optional: true })).toEqual([]);
  });
});

describe('readJson and readTextFile', () => {
  it('names a missing field', () => {
    const f = file('obj.json', '{"a": 1}');
    expect(() => readJson(f, 'fix it', z.object({ a: z.number(), b: z.string() }))).toThrow(
      `${f}: lacks the field 'b'. Fix: fix it.`,
    );
  });

  it('caps the size, naming the file and the cap', () => {
    const f = file('big.txt', 'x'.repeat(2 * 1024 * 1024));
    const r = readTextFile(f, 1024 * 1024);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error.message).toBe(`${f} is larger than the 1 MiB agentguard reads from such a file`);
  });
});
