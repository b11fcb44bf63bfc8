import type { Alert } from '../analysis/rules/types.js';
import { bounded, md, moreLine, shellJoin, table } from './markdown-text.js';

const SEVERITY_ORDER = { critical: 0, error: 1, warning: 2, info: 3 } as const;

/** Security alerts: what fired, on which resource, and the chain of processes that did it. */
export function alertsSection(alerts: readonly Alert[]): string[] {
  const lines = ['## Security alerts', ''];
  if (alerts.length === 0) {
    lines.push('None: no security rule matched the recorded system calls, network records or diff.');
    return lines;
  }
  const ordered = [...alerts].sort(
    (a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.seq - b.seq,
  );
  const { shown, more } = bounded(ordered, 50);
  lines.push(
    ...table(
      ['Severity', 'Rule', 'Class', 'Call', 'Resource', 'Process', 'At'],
      shown.map((a) => [
        a.severity,
        md(a.rule),
        a.class,
        md(a.syscall),
        md(a.path ?? (a.host ? `${a.host}${a.port ? `:${a.port}` : ''}` : '-')),
        `${md(a.process.exe)} (pid ${a.process.pid})${a.phase === 'tests' ? ', during the tests' : ''}`,
        a.ts >= 0 ? `+${Math.round(a.ts)} ms` : '-',
      ]),
    ),
  );
  lines.push(...moreLine(more, 'alerts'));
  for (const a of shown) {
    lines.push(
      '',
      `### ${a.severity === 'critical' || a.severity === 'error' ? '🚨' : '⚠️'} ${md(a.rule)}`,
      '',
    );
    lines.push(`${md(a.message)}${a.count > 1 ? ` (${a.count} times)` : ''}`, '');
    lines.push('Process chain, acting process first:', '');
    for (const p of a.process.chain)
      lines.push(`- pid ${p.pid}: ${md(p.exe)} — ${md(shellJoin(p.argv), 200)}`);
  }
  return lines;
}
