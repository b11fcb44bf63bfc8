import { describe, expect, it } from 'vitest';
import { PhaseProgress } from './phase-progress.js';

describe('the progress line of a run', () => {
  it('shows nothing for two seconds, then the step with its time and the run’s, and erases itself', () => {
    let now = 1000;
    const written: string[] = [];
    const p = new PhaseProgress(
      (raw) => written.push(raw),
      () => now,
      2000,
      60_000,
    );
    p.event({ ts: 0, phase: 'prepare', event: 'start' });
    now += 1500;
    p.redraw();
    expect(written.join('')).toBe('');
    p.event({ ts: 1500, phase: 'agent', event: 'started' });
    expect(written.join('')).toBe('');
    // The window's own events do not restart the step.
    now += 1000;
    p.event({ ts: 2500, phase: 'observe', event: 'window-open' });
    now += 1500;
    p.redraw();
    expect(written.at(-1)).toBe('\r\u001b[2K[the agent is running 0:03 · run 0:04]');
    p.clear();
    expect(written.at(-1)).toBe('\r\u001b[2K');
    const n = written.length;
    p.clear();
    expect(written.length).toBe(n);
    // Past two seconds a new step shows at once, even if what follows blocks the event loop.
    p.event({ ts: 4000, phase: 'tests', event: 'started' });
    expect(written.at(-1)).toBe('\r\u001b[2K[the tests are running 0:00 · run 0:04]');
    p.stop();
    expect(written.at(-1)).toBe('\r\u001b[2K');
  });
});

describe('the progress line of a command', () => {
  it('names the command on its second clock', () => {
    let now = 0;
    const written: string[] = [];
    const p = new PhaseProgress(
      (raw) => written.push(raw),
      () => now,
      2000,
      60_000,
      'pack verify',
    );
    p.step('reading the archive');
    now = 2500;
    p.step('checking the benchmarks it holds: js-slugify (1 of 3)');
    expect(written.at(-1)).toBe(
      '\r\u001b[2K[checking the benchmarks it holds: js-slugify (1 of 3) 0:00 · pack verify 0:03]',
    );
    p.stop();
  });
});
