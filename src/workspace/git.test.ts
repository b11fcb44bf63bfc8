import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SetupError } from '../errors.js';
import { commitEntries } from './fast-import.js';
import { allSettled, git } from './git.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ag-git-'));
  dirs.push(d);
  return d;
}

/** A harness git directory holding one blob of `bytes` bytes; its sha. */
async function repoWithBlob(bytes: number): Promise<{ gitDir: string; sha: string }> {
  const gitDir = path.join(tmp(), 'h.git');
  mkdirSync(gitDir);
  await git(['init', '-q'], { gitDir });
  const file = path.join(tmp(), 'blob');
  writeFileSync(file, Buffer.alloc(bytes, 0x61));
  const sha = (await git(['hash-object', '-w', file], { gitDir })).stdout.toString('utf8').trim();
  return { gitDir, sha };
}

describe('git (async, bounded)', () => {
  it('feeds stdin and returns stdout whole when it fits', async () => {
    const { gitDir, sha } = await repoWithBlob(10);
    const r = await git(['cat-file', '--batch'], { gitDir, input: Buffer.from(`${sha}\n`) });
    expect(r.truncated).toBe(false);
    expect(r.stdout.toString('latin1')).toBe(`${sha} blob 10\n${'a'.repeat(10)}\n`);
  });

  it('keeps exactly maxBuffer bytes of a larger output and stops git', async () => {
    // 64 MiB asked for, 100 KiB kept: git is stopped rather than read to its end.
    const { gitDir, sha } = await repoWithBlob(1 << 20);
    const input = Buffer.from(`${sha}\n`.repeat(64));
    const r = await git(['cat-file', '--batch'], { gitDir, input, maxBuffer: 100 * 1024 });
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBe(100 * 1024);
    const header = `${sha} blob 1048576\n`;
    expect(r.stdout.subarray(0, header.length).toString('latin1')).toBe(header);
  });

  it('names the command and what git said when it fails', async () => {
    const { gitDir } = await repoWithBlob(1);
    const failed = git(['rev-parse', '--verify', 'no-such-ref'], { gitDir });
    await expect(failed).rejects.toThrow(SetupError);
    await expect(git(['init', '-q'], { gitDir: path.join(gitDir, 'absent') })).rejects.toThrow(
      `git init could not start: its folder ${path.join(gitDir, 'absent')} does not exist`,
    );
    await expect(failed).rejects.toThrow(
      /git rev-parse --verify no-such-ref failed: fatal: Needed a single revision/,
    );
  });

  it('kills a git that blocks past its time limit (a fifo where a file was expected)', async () => {
    const work = tmp();
    execFileSync('mkfifo', [path.join(work, 'pipe')]);
    const gitDir = path.join(tmp(), 'h.git');
    await git(['init', '-q'], { gitDir, workTree: work });
    await expect(git(['hash-object', 'pipe'], { gitDir, workTree: work, timeoutMs: 500 })).rejects.toThrow(
      /git hash-object did not finish within 1 s/,
    );
  });
});

describe('allSettled', () => {
  it('fails with the first failure only once every promise has settled', async () => {
    const order: string[] = [];
    const slow = new Promise<number>((resolve) =>
      setTimeout(() => {
        order.push('slow settled');
        resolve(1);
      }, 50),
    );
    const fast = Promise.reject(new Error('fast failed'));
    await expect(allSettled([slow, fast])).rejects.toThrow('fast failed');
    expect(order).toEqual(['slow settled']);
    await expect(allSettled([Promise.resolve('a'), Promise.resolve(2)])).resolves.toEqual(['a', 2]);
  });
});

describe('commitEntries', () => {
  it('returns the failure of a fast-import that died while input was still coming, without waiting on the pipe', async () => {
    // Far more than a pipe holds: had the writer waited for 'drain' alone, it would wait forever.
    const work = tmp();
    const entries = [1, 2, 3, 4].map((i) => {
      const rel = Buffer.from(`f${i}.bin`);
      writeFileSync(path.join(work, `f${i}.bin`), Buffer.alloc(4 << 20, i));
      return { rel, abs: Buffer.from(path.join(work, `f${i}.bin`)), mode: '100644' as const };
    });
    const r = await commitEntries({
      gitDir: path.join(tmp(), 'not-a-repository'),
      workTree: work,
      ref: 'refs/heads/main',
      entries,
    });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toMatch(/git fast-import failed: .*not a git repository/i);
  });
});
