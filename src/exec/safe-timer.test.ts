import { describe, expect, it } from 'vitest';
import { runCommand } from './run-command.js';
import { MAX_TIMER_MS, safeTimeout } from './safe-timer.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('safeTimeout', () => {
  it('fires on time for an ordinary delay', async () => {
    let fired = 0;
    safeTimeout(() => fired++, 20);
    await sleep(80);
    expect(fired).toBe(1);
  });

  it('never fires early for delays Node cannot hold (2^31 ms and up, 1e12, Infinity)', async () => {
    let fired = 0;
    const timers = [MAX_TIMER_MS + 1, 2_200_000 * 1000, 1e12 * 1000, Number.POSITIVE_INFINITY].map((ms) =>
      safeTimeout(() => fired++, ms),
    );
    await sleep(100);
    for (const t of timers) t.clear();
    expect(fired).toBe(0);
  });

  it('a cleared timer does not fire', async () => {
    let fired = 0;
    safeTimeout(() => fired++, 10).clear();
    await sleep(50);
    expect(fired).toBe(0);
  });
});

describe('runCommand with huge timeouts', () => {
  for (const seconds of [2_200_000, 1e12]) {
    it(`timeout_seconds ${seconds} does not kill a short command at once`, async () => {
      const o = await runCommand({
        spec: { argv: ['sh', '-c', 'sleep 0.3; exit 4'], cwd: '/', env: { PATH: process.env.PATH ?? '' } },
        timeoutMs: seconds * 1000,
        maxOutputBytes: 1024,
      });
      expect(o.timed_out).toBe(false);
      expect(o.exit_code).toBe(4);
    });
  }
});
