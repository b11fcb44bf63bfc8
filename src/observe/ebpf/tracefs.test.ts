import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../package-root.js';

const root = process.getuid?.() === 0;
const built = (module: string) => JSON.stringify(path.join(packageRoot(), 'dist', 'observe', 'ebpf', module));

/**
 * Runs `body` (module code with ensureTracefs, readMounts, execFile and TRACEFS_DIR in scope; it
 * prints one JSON line) with tracefs unmounted, in a mount namespace of its own: the tests running
 * beside this one keep their tracefs. The built module is used, as the CLI's tests use the build.
 * Null when tracefs cannot be unmounted there.
 */
function withoutTracefs(body: string): Record<string, unknown> | null {
  const script = `
import { execFile, execFileSync } from 'node:child_process';
import { ensureTracefs, TRACEFS_DIR } from ${built('tracefs.js')};
import { readMounts } from ${built('mounts.js')};
try { execFileSync('umount', [TRACEFS_DIR], { stdio: 'pipe' }); } catch { process.exit(77); }
${body}`;
  const r = spawnSync(
    'unshare',
    ['--mount', '--propagation', 'private', process.execPath, '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  if (r.status === 77 || r.error) {
    console.warn(
      `skipped: cannot unmount tracefs in a mount namespace (${r.error?.message ?? 'umount failed'})`,
    );
    return null;
  }
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
}

describe.skipIf(!root)('ensureTracefs (root: mounts for real, in a mount namespace of its own)', () => {
  it('two runs that both find tracefs missing both get it, and it is mounted once', (ctx) => {
    const seen = withoutTracefs(`
const [a, b] = await Promise.all([ensureTracefs(), ensureTracefs()]);
const mounts = (await readMounts()).split('\\n').filter((l) => l.includes(' ' + TRACEFS_DIR + ' tracefs '));
console.log(JSON.stringify({ a, b, mounted: mounts.length }));`);
    if (!seen) return ctx.skip();
    expect(seen).toEqual({
      a: { ok: true, dir: '/sys/kernel/tracing' },
      b: { ok: true, dir: '/sys/kernel/tracing' },
      mounted: 1,
    });
  });

  it('a mount another process made first counts as success', (ctx) => {
    // Both mount at once: whichever loses sees "already mounted" and must re-check, not fail.
    const seen = withoutTracefs(`
const theirs = new Promise((resolve) => execFile('mount', ['-t', 'tracefs', 'nodev', TRACEFS_DIR], () => resolve()));
const ours = await ensureTracefs();
await theirs;
console.log(JSON.stringify({ ok: ours.ok }));`);
    if (!seen) return ctx.skip();
    expect(seen).toEqual({ ok: true });
  });
});
