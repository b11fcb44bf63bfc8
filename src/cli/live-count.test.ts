import { afterEach, describe, expect, it, vi } from 'vitest';
import { ERASE_LINE, formatClock, isCI, LiveCount, liveCountText, liveCountWanted } from './live-count.js';

describe('live count', () => {
  afterEach(() => vi.useRealTimers());

  it('formats the clock as m:ss or h:mm:ss, rounding up', () => {
    expect(formatClock(0)).toBe('0:00');
    expect(formatClock(41_200)).toBe('0:42');
    expect(formatClock(723_000)).toBe('12:03');
    expect(formatClock(3_723_000)).toBe('1:02:03');
    expect(formatClock(-5)).toBe('0:00');
  });

  it('says done, running, failed and the ETA, or – before any attempt finished', () => {
    const c = { done: 7, running: 2, failed: 1, total: 15 };
    expect(liveCountText(c, 42_000)).toBe('[7/15 done, 2 running, 1 failed, ETA 0:42]');
    expect(liveCountText({ ...c, done: 0 }, null)).toBe('[0/15 done, 2 running, 1 failed, ETA –]');
  });

  it('is drawn only on a terminal, without --json, outside CI', () => {
    const env = {};
    expect(liveCountWanted({ isTTY: true, json: false, env })).toBe(true);
    expect(liveCountWanted({ isTTY: false, json: false, env })).toBe(false);
    expect(liveCountWanted({ isTTY: true, json: true, env })).toBe(false);
    expect(liveCountWanted({ isTTY: true, json: false, env: { CI: 'true' } })).toBe(false);
    expect(liveCountWanted({ isTTY: true, json: false, env: { CI: '1' } })).toBe(false);
    expect(isCI({ CI: 'false' })).toBe(false);
    expect(isCI({ CI: '0' })).toBe(false);
    expect(isCI({ CI: '' })).toBe(false);
  });

  it('redraws in place, counts the ETA down between events, and erases itself', () => {
    vi.useFakeTimers();
    let now = 1_000_000;
    const writes: string[] = [];
    const live = new LiveCount(
      (raw) => writes.push(raw),
      () => now,
      1000,
    );
    live.clear(); // nothing shown yet: nothing to erase
    expect(writes).toEqual([]);
    live.update({ done: 0, running: 2, failed: 0, total: 4 });
    live.update({ done: 1, running: 1, failed: 1, total: 4 }, 30_000);
    now += 10_000;
    vi.advanceTimersByTime(1000);
    live.stop();
    expect(writes).toEqual([
      `${ERASE_LINE}[0/4 done, 2 running, 0 failed, ETA –]`,
      `${ERASE_LINE}[1/4 done, 1 running, 1 failed, ETA 0:30]`,
      `${ERASE_LINE}[1/4 done, 1 running, 1 failed, ETA 0:20]`,
      ERASE_LINE,
    ]);
    // Stopped: the timer draws nothing more.
    vi.advanceTimersByTime(5000);
    expect(writes).toHaveLength(4);
  });
});
