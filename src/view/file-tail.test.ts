import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileTail, MAX_LINE_BYTES } from './file-tail.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ag-tail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('FileTail', () => {
  it('gives each whole line once, holding a partial line until its newline arrives', () => {
    const file = path.join(dir, 'a.jsonl');
    const tail = new FileTail(file, dir);
    expect(tail.read()).toEqual({ lines: [], skipped: 0 });
    writeFileSync(file, '{"a":1}\n{"b":');
    expect(tail.read()).toEqual({ lines: ['{"a":1}'], skipped: 0 });
    expect(tail.read()).toEqual({ lines: [], skipped: 0 });
    appendFileSync(file, '2}\n');
    expect(tail.read()).toEqual({ lines: ['{"b":2}'], skipped: 0 });
  });

  it('skips a line over the limit, even one that arrives in pieces, and goes on after it', () => {
    const file = path.join(dir, 'b.jsonl');
    const tail = new FileTail(file, dir);
    writeFileSync(file, 'x'.repeat(MAX_LINE_BYTES + 10));
    expect(tail.read()).toEqual({ lines: [], skipped: 1 });
    appendFileSync(file, 'y'.repeat(1000));
    appendFileSync(file, '\nok\n');
    expect(tail.read()).toEqual({ lines: ['ok'], skipped: 0 });
  });

  it('reads a file that was replaced by a shorter one from its start', () => {
    const file = path.join(dir, 'c.jsonl');
    const tail = new FileTail(file, dir);
    writeFileSync(file, 'one\ntwo\n');
    expect(tail.read().lines).toEqual(['one', 'two']);
    writeFileSync(file, 'new\n');
    expect(tail.read().lines).toEqual(['new']);
  });

  it('reads a big file in bounded steps and says when it is behind', () => {
    const file = path.join(dir, 'd.jsonl');
    const line = `${'z'.repeat(999)}\n`;
    writeFileSync(file, line.repeat(600));
    const tail = new FileTail(file, dir);
    const first = tail.read().lines.length;
    expect(first).toBeLessThan(600);
    expect(tail.behind()).toBe(true);
    let total = first;
    while (tail.behind()) total += tail.read().lines.length;
    expect(total).toBe(600);
  });

  it('refuses a FIFO at once, and a link (the file or a folder on the way), reading nothing through it', () => {
    const fifo = path.join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const tail = new FileTail(fifo, dir);
    expect(tail.read()).toEqual({
      lines: [],
      skipped: 0,
      refused: 'is a FIFO (named pipe), not a regular file',
    });
    expect(tail.behind()).toBe(false);
    const outside = mkdtempSync(path.join(tmpdir(), 'ag-tail-out-'));
    writeFileSync(path.join(outside, 'x.jsonl'), 'secret\n');
    symlinkSync(path.join(outside, 'x.jsonl'), path.join(dir, 'link.jsonl'));
    mkdirSync(path.join(dir, 'run'));
    symlinkSync(outside, path.join(dir, 'run', 'evidence'));
    expect(new FileTail(path.join(dir, 'link.jsonl'), dir).read().refused).toBe(
      'is a symbolic link, which agentguard does not follow here',
    );
    const viaFolder = new FileTail(path.join(dir, 'run', 'evidence', 'x.jsonl'), dir);
    expect(viaFolder.read().refused).toMatch(/is reached through .*\/run\/evidence, a symbolic link/);
    expect(viaFolder.behind()).toBe(false);
    rmSync(outside, { recursive: true, force: true });
  });
});
