import { describe, expect, it } from 'vitest';
import { PhaseProgress } from './phase-progress.js';

describe('the progress line of a run', () => {
  it('shows a step only once it has lasted two seconds, with its time and the run’s, and erases itself', () => {
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
    p.event({ ts: 4000, phase: 'tests', event: 'started' });
    p.redraw();
    expect(written.length).toBe(n);
    p.stop();
  });
});
