import { describe, expect, it } from 'vitest';
import { mapLimit, mapSettled } from './scheduler.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('mapLimit', () => {
  it('keeps input order and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimit([30, 5, 20, 1, 10], 2, async (ms, i) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await sleep(ms);
      inFlight--;
      return i;
    });
    expect(out).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it('stops starting work after a failure and rethrows it', async () => {
    const started: number[] = [];
    await expect(
      mapLimit([1, 2, 3, 4], 1, async (n) => {
        started.push(n);
        if (n === 2) throw new Error('boom');
        return n;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });

  it('mapSettled: a failed item is its own row and the others still run', async () => {
    const out = await mapSettled([1, 2, 3, 4], 2, async (n) => {
      if (n === 2) throw new Error('tracefs already mounted');
      await sleep(5);
      return n * 10;
    });
    expect(out).toEqual([
      { status: 'done', value: 10 },
      { status: 'failed', error: new Error('tracefs already mounted') },
      { status: 'done', value: 30 },
      { status: 'done', value: 40 },
    ]);
  });

  it('mapSettled: an aborted signal starts nothing new', async () => {
    const controller = new AbortController();
    const out = await mapSettled(
      [1, 2, 3],
      1,
      async (n) => {
        controller.abort();
        return n;
      },
      controller.signal,
    );
    expect(out.map((r) => r.status)).toEqual(['done', 'skipped', 'skipped']);
  });
});
