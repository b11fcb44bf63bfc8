import { execFile, execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readMounts } from './mounts.js';
import { ensureTracefs, TRACEFS_DIR } from './tracefs.js';

const root = process.getuid?.() === 0;

/** Unmounts tracefs for `fn` and always mounts it back: other tests on this host need it. */
async function withoutTracefs(fn: () => Promise<void>): Promise<boolean> {
  try {
    execFileSync('umount', [TRACEFS_DIR], { stdio: 'pipe' });
  } catch (err) {
    console.warn(`skipped: cannot unmount ${TRACEFS_DIR} (${(err as Error).message.trim()})`);
    return false;
  }
  try {
    await fn();
  } finally {
    if (!(await readMounts()).includes(` ${TRACEFS_DIR} tracefs `)) {
      execFileSync('mount', ['-t', 'tracefs', 'nodev', TRACEFS_DIR]);
    }
  }
  return true;
}

describe.skipIf(!root)('ensureTracefs (root: mounts for real)', () => {
  it('two runs that both find tracefs missing both get it, and it is mounted once', async (ctx) => {
    const ran = await withoutTracefs(async () => {
      const [a, b] = await Promise.all([ensureTracefs(), ensureTracefs()]);
      expect(a).toEqual({ ok: true, dir: TRACEFS_DIR });
      expect(b).toEqual({ ok: true, dir: TRACEFS_DIR });
      const mounts = (await readMounts()).split('\n').filter((l) => l.includes(` ${TRACEFS_DIR} tracefs `));
      expect(mounts).toHaveLength(1);
    });
    if (!ran) ctx.skip();
  });

  it('a mount another process made first counts as success', async (ctx) => {
    const ran = await withoutTracefs(async () => {
      // Both mount at once: whichever loses sees "already mounted" and must re-check, not fail.
      const theirs = new Promise<void>((resolve) =>
        execFile('mount', ['-t', 'tracefs', 'nodev', TRACEFS_DIR], () => resolve()),
      );
      const ours = await ensureTracefs();
      await theirs;
      expect(ours.ok).toBe(true);
    });
    if (!ran) ctx.skip();
  });
});
