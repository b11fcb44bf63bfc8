import type { TimelineEvent } from '../evidence/types.js';
import type { RunContext } from '../pipeline/context.js';
import type { CliIO } from './io.js';
import { ERASE_LINE, formatClock, liveCountWanted } from './live-count.js';

/** What a person sees for each phase of a run while it lasts. */
const LABELS: Record<TimelineEvent['phase'], string | null> = {
  prepare: 'preparing the workspace',
  agent: 'the agent is running',
  tests: 'the tests are running',
  collect: 'collecting the evidence',
  analyse: 'analysing',
  report: 'writing the reports',
  // The observation window opens and closes around the others: not a step of its own.
  observe: null,
};

/**
 * The current step of a run (or of any long command) on a terminal: one line on stderr, redrawn
 * in place, shown only once the run has taken longer than `afterMs` (a quick one prints nothing
 * extra; after that each new step shows at once, so that a step that blocks the event loop is
 * still named as it starts), e.g. `[the agent is running 0:07 · run 0:09]` or `[checking the files 0:03 · pack verify
 * 0:05]`. Ordinary lines clear it first (see `clear`).
 */
export class PhaseProgress {
  private label: string | null = null;
  private since = 0;
  private readonly started: number;
  private shown = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: (raw: string) => void,
    private readonly now: () => number = Date.now,
    private readonly afterMs = 2000,
    tickMs = 500,
    /** What the second clock times: the run, or the command. */
    private readonly whole = 'run',
  ) {
    this.started = now();
    this.timer = setInterval(() => this.redraw(), tickMs);
    this.timer.unref();
  }

  /** A timeline event: a new phase restarts the step's clock. */
  event(e: TimelineEvent): void {
    const label = LABELS[e.phase];
    if (label !== null) this.step(label);
  }

  /** A step by its label: a new one restarts the step's clock. */
  step(label: string): void {
    if (label === this.label) return;
    this.label = label;
    this.since = this.now();
    this.redraw();
  }

  redraw(): void {
    const now = this.now();
    if (this.label === null || now - this.started < this.afterMs) {
      this.clear();
      return;
    }
    this.write(
      `${ERASE_LINE}[${this.label} ${formatClock(now - this.since)} · ${this.whole} ${formatClock(now - this.started)}]`,
    );
    this.shown = true;
  }

  /** Erase the line so that an ordinary line can be printed where it was. */
  clear(): void {
    if (this.shown) this.write(ERASE_LINE);
    this.shown = false;
  }

  stop(): void {
    clearInterval(this.timer);
    this.clear();
    this.label = null;
  }
}

/**
 * The run context with a progress line where a person watches (stderr a terminal, no --json, not
 * under CI), its log lines clearing the line first; `stop` erases it for the summary.
 */
export function withProgress(
  ctx: RunContext,
  o: { tty: ((raw: string) => void) | undefined; json: boolean },
): { ctx: RunContext; stop: () => void } {
  if (o.tty === undefined || !liveCountWanted({ isTTY: true, json: o.json, env: ctx.env })) {
    return { ctx, stop: () => {} };
  }
  const progress = new PhaseProgress(o.tty);
  const log = ctx.log;
  return {
    ctx: {
      ...ctx,
      progress: (e) => progress.event(e),
      log: (line) => {
        progress.clear();
        log(line);
        progress.redraw();
      },
    },
    stop: () => progress.stop(),
  };
}

/** A command's own steps, for a command that is not a run (or that runs one in another process). */
export type StepProgress = {
  /** The command's output, each line clearing the progress line first and drawing it after. */
  io: CliIO;
  /** A new step starts (its label says what is being done: `verifying the pack`). */
  step: (label: string) => void;
  /** Erase the line for good; call it before the result is printed. */
  stop: () => void;
};

/**
 * The progress line of `command` (`pack verify`, `agents verify`, `doctor`…) where a person watches:
 * stderr a terminal, no --json, not under CI; elsewhere `step` and `stop` do nothing.
 */
export function stepProgress(io: CliIO, o: { command: string; json: boolean }): StepProgress {
  if (io.tty === undefined || !liveCountWanted({ isTTY: true, json: o.json, env: process.env })) {
    return { io, step: () => {}, stop: () => {} };
  }
  const progress = new PhaseProgress(io.tty, Date.now, 2000, 500, o.command);
  const around =
    (print: (text: string) => void) =>
    (text: string): void => {
      progress.clear();
      print(text);
      progress.redraw();
    };
  return {
    io: { ...io, out: around(io.out), err: around(io.err) },
    step: (label) => progress.step(label),
    stop: () => progress.stop(),
  };
}
