import type { Redactor } from '../evidence/redact.js';

/** What the live page receives: one server-sent event each. Every string is redacted first. */
export type LiveMessage =
  | { type: 'timeline'; ts: number; phase: string; event: string; detail: string | null }
  | {
      type: 'alert';
      rule: string;
      severity: string;
      message: string;
      syscall: string;
      where: string;
      process: string;
      detected_ms: number | null;
      latency_ms: number | null;
    }
  | { type: 'note'; text: string }
  | { type: 'done'; report: string | null };

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function parse(line: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A line of evidence/timeline.jsonl as shown live, or a note when it is not a timeline event. */
export function timelineMessage(line: string, redactor: Redactor): LiveMessage {
  const e = parse(line);
  if (e === null || typeof e.event !== 'string') {
    return { type: 'note', text: 'a line of evidence/timeline.jsonl is not a timeline event; skipped' };
  }
  return redactor.value({
    type: 'timeline',
    ts: num(e.ts) ?? 0,
    phase: str(e.phase),
    event: e.event,
    detail: typeof e.detail === 'string' ? e.detail : null,
  });
}

/** A line of guard/alerts.jsonl (a LiveAlert) as shown live, or a note when it is not one. */
export function alertMessage(line: string, redactor: Redactor): LiveMessage {
  const live = parse(line);
  const alert = record(live?.alert);
  if (live === null || typeof alert.rule !== 'string') {
    return { type: 'note', text: 'a line of guard/alerts.jsonl is not a live alert; skipped' };
  }
  const proc = record(alert.process);
  const host = str(alert.host);
  const port = num(alert.port);
  const where = str(alert.path) || (host ? `${host}${port === null ? '' : `:${port}`}` : '');
  const pid = num(proc.pid);
  return redactor.value({
    type: 'alert',
    rule: alert.rule,
    severity: str(alert.severity, 'unknown'),
    message: str(alert.message),
    syscall: str(alert.syscall),
    where,
    process: `${str(proc.exe, '?')}${pid === null ? '' : ` (pid ${pid})`}`,
    detected_ms: num(live.detected_ms),
    latency_ms: num(live.latency_ms),
  });
}

/** One server-sent event: a named event and its JSON on one data line (JSON has no raw newline). */
export function sseFrame(message: LiveMessage): string {
  return `event: ${message.type}\ndata: ${JSON.stringify(message)}\n\n`;
}
