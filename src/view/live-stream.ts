import { existsSync, type FSWatcher, lstatSync, watch } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { runPath } from '../evidence/layout.js';
import type { Redactor } from '../evidence/redact.js';
import { reportPath } from '../reports/reporters.js';
import { FileTail } from './file-tail.js';
import { alertMessage, type LiveMessage, sseFrame, timelineMessage } from './live-messages.js';

export type LiveStreamOptions = {
  runDir: string;
  /** The run's redactor as of now (its canary tokens appear once the window opens). */
  redactor: () => Redactor;
  /** The run's report page in the viewer, once the run has one. */
  reportPage: () => string | null;
  /** The fallback when a change notification is missed (fs.watch is not reliable everywhere). */
  pollMs: number;
  /** Called once, when the stream ends for any reason. */
  onClose: () => void;
};

/** How long after report.json appears the stream keeps reading before it says `done`. */
const SETTLE_MS = 1000;
/** A comment line every so often keeps proxies and the browser from timing the stream out. */
const KEEPALIVE_MS = 15_000;

/**
 * One browser's server-sent event stream of a run folder: the timeline and the live guard's alerts,
 * each line once, as the run appends them. Woken by fs.watch on the folders, polled as a fallback;
 * it stops reading while the browser is slow to take what was sent (the socket's buffer is full).
 * When report.json appears it sends what is left and `done`, and ends.
 */
export class LiveStream {
  private readonly timeline: FileTail;
  private readonly alerts: FileTail;
  private readonly watchers = new Map<string, FSWatcher>();
  private poller: NodeJS.Timeout | null = null;
  private keepalive: NodeJS.Timeout | null = null;
  private scheduled = false;
  private closed = false;
  /** When report.json was first seen: the run still appends its last timeline lines after it. */
  private finishedAt: number | null = null;
  /** The refusal last told the page, per file: said once, not on every poll. */
  private readonly refusals = new Map<FileTail, string>();

  constructor(
    private readonly res: ServerResponse,
    private readonly opts: LiveStreamOptions,
  ) {
    // Opened from runs/, so the run folder itself is one of the names never followed as a link.
    const runs = path.dirname(opts.runDir);
    this.timeline = new FileTail(runPath(opts.runDir, 'timeline'), runs);
    this.alerts = new FileTail(runPath(opts.runDir, 'liveAlerts'), runs);
  }

  start(): void {
    this.res.on('close', () => this.stop());
    this.res.on('drain', () => this.wake());
    this.res.write('retry: 2000\n\n');
    this.poller = setInterval(() => this.wake(), this.opts.pollMs);
    this.keepalive = setInterval(() => this.res.write(': keepalive\n\n'), KEEPALIVE_MS);
    this.pump();
  }

  /** Ends the stream and releases its timers and watchers; safe to call more than once. */
  stop(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
    if (this.keepalive) clearInterval(this.keepalive);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    if (!this.res.writableEnded) this.res.end();
    this.opts.onClose();
  }

  private wake(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.closed) return;
    this.watchFolders();
    // Finished is decided before reading: what a finished run wrote is all there is to send.
    if (this.finishedAt === null && existsSync(reportPath(this.opts.runDir, 'json')))
      this.finishedAt = Date.now();
    const finished = this.finishedAt !== null && Date.now() - this.finishedAt >= SETTLE_MS;
    const redactor = this.opts.redactor();
    for (const [tail, toMessage] of [
      [this.timeline, timelineMessage],
      [this.alerts, alertMessage],
    ] as const) {
      if (this.res.writableNeedDrain) return;
      const { lines, skipped, refused } = tail.read();
      const name = path.relative(this.opts.runDir, tail.file);
      if (refused !== undefined && this.refusals.get(tail) !== refused) {
        this.refusals.set(tail, refused);
        this.send({ type: 'note', text: `${name} ${refused}; not shown` });
      }
      for (const line of lines) this.send(toMessage(line, redactor));
      if (skipped > 0) this.send({ type: 'note', text: `${skipped} over-long lines of ${name} not shown` });
      if (tail.behind()) this.wake();
    }
    if (finished && !this.timeline.behind() && !this.alerts.behind() && !this.res.writableNeedDrain) {
      this.send({ type: 'done', report: this.opts.reportPage() });
      this.stop();
    }
  }

  private send(message: LiveMessage): void {
    this.res.write(sseFrame(message));
  }

  /** Watches the run folder, and evidence/ and guard/ once they exist (as folders, not links out). */
  private watchFolders(): void {
    // The run folder itself too: guard/ is created with the first alert, and that should wake us.
    for (const dir of [this.opts.runDir, path.dirname(this.timeline.file), path.dirname(this.alerts.file)]) {
      if (this.watchers.has(dir) || !isFolder(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, () => this.wake());
        // A watcher that fails (the folder removed, a limit reached) leaves the poller to do its work.
        w.on('error', () => {
          w.close();
        });
        this.watchers.set(dir, w);
      } catch {
        // inotify limits: polling alone still delivers every line.
      }
    }
  }
}

function isFolder(dir: string): boolean {
  try {
    return lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}
