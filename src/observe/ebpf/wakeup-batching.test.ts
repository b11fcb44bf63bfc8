import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { buildWakeupBatching, WAKEUP_EVENTS } from './wakeup-batching.js';

const work = mkdtempSync(path.join(tmpdir(), 'ag-wakeup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canBuild = has('cc');
const canTrace = canBuild && has('bpftrace') && process.getuid?.() === 0;
if (!canTrace)
  console.warn('wakeup batching tests partly skipped: they need cc, bpftrace and root (CI has them)');

/** Lines bpftrace has written after `ms`, printing one record every 50 ms. */
async function linesAfter(name: string, ms: number, env: Record<string, string>): Promise<number> {
  const out = path.join(work, `${name}.txt`);
  const child = spawn(
    'sh',
    ['-c', `exec bpftrace -e 'interval:ms:50 { print((7, nsecs)); }' > ${out} 2>/dev/null`],
    {
      env: { ...process.env, ...env },
    },
  );
  try {
    await sleep(ms);
    return existsSync(out)
      ? readFileSync(out, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('(7,')).length
      : 0;
  } finally {
    child.kill('SIGKILL');
  }
}

describe('perf wakeup batching', () => {
  it.skipIf(!canBuild)('builds the library once and says why when there is no compiler', () => {
    const built = buildWakeupBatching(path.join(work, 'cache'));
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(existsSync(built.env.LD_PRELOAD as string)).toBe(true);
    expect(built.env.AGENTGUARD_PERF_WAKEUP_EVENTS).toBe(String(WAKEUP_EVENTS));
    // Found, not rebuilt, on the second call — even without a compiler.
    expect(buildWakeupBatching(path.join(work, 'cache'), '/nonexistent')).toEqual(built);
    const none = buildWakeupBatching(path.join(work, 'no-cc'), '/nonexistent');
    expect(none).toMatchObject({ ok: false, reason: expect.stringContaining('no C compiler') });
  });

  it.skipIf(!canTrace)(
    'makes bpftrace read its perf buffer once per batch instead of once per record',
    async () => {
      const built = buildWakeupBatching(path.join(work, 'cache'));
      if (!built.ok) throw new Error(built.reason);
      // 20 records a second: woken per record they show up at once; batched, none of the first
      // 64 can show up before the 64th is written (3.2 s).
      const plain = await linesAfter('plain', 2500, {});
      const batched = await linesAfter('batched', 2500, built.env);
      expect(plain).toBeGreaterThan(10);
      expect(batched).toBe(0);
    },
    30_000,
  );
});
