import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openInside } from './open-inside.js';
import { isMissing, readJsonl, readTextFile } from './read.js';

const root = mkdtempSync(path.join(tmpdir(), 'ag-inside-'));
const outside = mkdtempSync(path.join(tmpdir(), 'ag-outside-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});
const at = (rel: string) => path.join(root, rel);
writeFileSync(path.join(outside, 'secret.txt'), 'outside\n');
mkdirSync(at('sub/deep'), { recursive: true });
writeFileSync(at('sub/deep/file.txt'), 'inside\n');
symlinkSync('/dev/zero', at('zero'));
symlinkSync(path.join(outside, 'secret.txt'), at('out-link'));
// A chain: each link looks harmless, the last one leaves.
symlinkSync('chain-2', at('chain-1'));
symlinkSync('chain-3', at('chain-2'));
symlinkSync(path.join(outside, 'secret.txt'), at('chain-3'));
symlinkSync('deep/file.txt', at('sub/inside-link'));
symlinkSync(outside, at('dir-link'));
symlinkSync('sub', at('sub-link'));
execFileSync('mkfifo', [at('fifo')]);

const refusal = (rel: string) => {
  const r = openInside(root, at(rel));
  if (r.ok) closeSync(r.fd);
  return r.ok ? null : r.refusal;
};

describe('openInside', () => {
  it('opens a regular file below the root, through real folders', () => {
    expect(readTextFile(at('sub/deep/file.txt'), 100, root)).toEqual({ ok: true, text: 'inside\n' });
  });

  it('refuses a link as the last name, wherever it points (a device, out, a chain, or inside)', () => {
    for (const rel of ['zero', 'out-link', 'chain-1', 'sub/inside-link'])
      expect(refusal(rel), rel).toEqual({
        code: 'link',
        detail: 'is a symbolic link, which agentguard does not follow here',
      });
  });

  it('refuses a folder on the way that is a link, out of the root or inside it', () => {
    expect(refusal('dir-link/secret.txt')).toEqual({
      code: 'link',
      detail: `is reached through ${at('dir-link')}, a symbolic link, which agentguard does not follow here`,
    });
    expect(refusal('sub-link/deep/file.txt')?.code).toBe('link');
  });

  it('opens a FIFO without waiting for a writer, and the reader refuses it as not a regular file', () => {
    const started = Date.now();
    const r = readTextFile(at('fifo'), 100, root);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(r).toMatchObject({ ok: false, error: { code: 'not-a-file' } });
    if (!r.ok) expect(r.error.message).toBe(`${at('fifo')} is a FIFO (named pipe), not a regular file`);
  });

  it('refuses a path that leaves the root by name, and tells missing from refused', () => {
    expect(refusal('../x')?.code).toBe('outside');
    expect(openInside(root, root)).toMatchObject({ ok: false, refusal: { code: 'outside' } });
    expect(refusal('absent.txt')).toEqual({ code: 'missing', detail: 'is missing' });
    expect(refusal('sub/deep/file.txt/more')).toEqual({
      code: 'missing',
      detail: `is missing (${at('sub/deep/file.txt')} is not a folder)`,
    });
    expect(isMissing(at('absent.txt'), root)).toBe(true);
    expect(isMissing(at('zero'), root)).toBe(false);
    expect(() => readJsonl(at('out-link'), { optional: true, within: root })).toThrow(
      `${at('out-link')} is a symbolic link, which agentguard does not follow here. Fix:`,
    );
  });

  it('without `within`, the readers follow links as before (configs the operator names may be links)', () => {
    expect(readTextFile(at('out-link'), 100)).toEqual({ ok: true, text: 'outside\n' });
  });
});
