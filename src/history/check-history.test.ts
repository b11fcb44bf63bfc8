import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { checkHistory, openHistory } from './db.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ag-history-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkHistory', () => {
  it('accepts a missing (then created) or healthy database', () => {
    const file = path.join(dir, 'fresh.db');
    checkHistory(file);
    checkHistory(file);
    openHistory(file).close();
  });

  it('refuses a corrupt file in one sentence that names it and the fix', () => {
    const file = path.join(dir, 'corrupt.db');
    writeFileSync(file, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 0x41)]));
    let error: unknown;
    try {
      checkHistory(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InputError);
    const message = (error as Error).message;
    expect(message).toContain(file);
    expect(message).toContain('move it aside');
    expect(message.split('\n')).toHaveLength(1);
  });
});
