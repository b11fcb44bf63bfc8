import type { BatchCounts } from '../batch/run-batch.js';

/*
 * The live count a batch shows on a terminal: one line on stderr, redrawn in place, e.g.
 * `[7/15 done, 2 running, 1 failed, ETA 0:42]`. Only where a person watches: stderr a TTY, no
 * --json, not under CI (a CI log would keep every redraw as noise). The one-line-per-attempt
 * progress still prints; the count is cleared before each such line and drawn again after it.
 */

/** `0:42`, `12:03`, `1:02:03`. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** The count's text; the ETA is unknown (`–`) until an attempt has finished. */
export function liveCountText(c: BatchCounts, etaMs: number | null): string {
  const eta = etaMs === null ? '–' : formatClock(etaMs);
  return `[${c.done}/${c.total} done, ${c.running} running, ${c.failed} failed, ETA ${eta}]`;
}

/** `CI` set to anything but empty, `false` or `0` (CI services set `CI=true`). */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
}

/** Whether to draw the count at all. */
export function liveCountWanted(o: { isTTY: boolean; json: boolean; env: NodeJS.ProcessEnv }): boolean {
  return o.isTTY && !o.json && !isCI(o.env);
}

/** Carriage return, then erase the whole line: the cursor ends at column 0 of an empty line. */
export const ERASE_LINE = '\r\u001b[2K';

/** Draws the count on a raw terminal stream; a timer keeps the ETA ticking between events. */
export class LiveCount {
  private counts: BatchCounts | null = null;
  private etaAt: number | null = null;
  private shown = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: (raw: string) => void,
    private readonly now: () => number = Date.now,
    tickMs = 1000,
  ) {
    this.timer = setInterval(() => this.redraw(), tickMs);
    // The count never keeps the process alive.
    this.timer.unref();
  }

  update(counts: BatchCounts, etaMs?: number): void {
    this.counts = counts;
    if (etaMs !== undefined) this.etaAt = counts.done >= counts.total ? null : this.now() + etaMs;
    this.redraw();
  }

  redraw(): void {
    if (this.counts === null) return;
    const eta = this.etaAt === null ? null : Math.max(0, this.etaAt - this.now());
    this.write(`${ERASE_LINE}${liveCountText(this.counts, eta)}`);
    this.shown = true;
  }

  /** Erase the count so that an ordinary line can be printed where it was. */
  clear(): void {
    if (this.shown) this.write(ERASE_LINE);
    this.shown = false;
  }

  stop(): void {
    clearInterval(this.timer);
    this.clear();
    this.counts = null;
  }
}
