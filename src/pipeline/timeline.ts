import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { TimelineEvent } from '../evidence/types.js';
import { markPhase } from './phase-marks.js';

/** Appends timeline events to disk as they happen, so a crashed run still has its story. */
export class Timeline {
  readonly events: TimelineEvent[] = [];
  private readonly t0 = performance.now();
  /** `onEvent` hears each event as it is written (the CLI's progress line). */
  constructor(
    private readonly file: string,
    private readonly onEvent?: (e: TimelineEvent) => void,
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
  }
  add(phase: TimelineEvent['phase'], event: string, detail?: string): void {
    const e: TimelineEvent = { ts: Math.round(performance.now() - this.t0), phase, event };
    if (detail !== undefined) e.detail = detail;
    this.events.push(e);
    appendFileSync(this.file, `${JSON.stringify(e)}\n`);
    this.onEvent?.(e);
    markPhase(`${phase}:${event}`);
  }
}
