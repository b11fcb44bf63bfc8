import type { Alert } from '../../analysis/rules/types.js';
import type { CheckResult, EvidenceItem } from '../../analysis/types.js';
import type { Severity } from '../../config/schema.js';
import type { DiffFile } from '../../evidence/types.js';
import { bounded, formatDuration, plural, shellJoin } from '../markdown-text.js';
import type { ReportCommand, RunReport } from '../types.js';
import { esc } from './escape.js';
import { htmlTable, moreNote } from './page.js';

/** Rows per table before "…and N more" (as in report.md). */
export const HTML_ROW_LIMIT = 50;
const EVIDENCE_LIMIT = 20;
const CHAIN_LIMIT = 20;
const SEVERITY_RANK: Record<Severity, number> = { critical: 0, error: 1, warning: 2, info: 3 };

const sev = (severity: Severity) => `<span class="sev-${severity}">${severity}</span>`;

/** Failed first, then by severity, then as the analysis listed them. */
function orderedChecks(checks: readonly CheckResult[]): CheckResult[] {
  return checks
    .map((check, index) => ({ check, index }))
    .sort(
      (a, b) =>
        Number(a.check.passed) - Number(b.check.passed) ||
        SEVERITY_RANK[a.check.severity] - SEVERITY_RANK[b.check.severity] ||
        a.index - b.index,
    )
    .map(({ check }) => check);
}

export function checksSection(checks: readonly CheckResult[]): string {
  if (checks.length === 0) return '<h2 id="checks">Checks</h2>\n<p>No checks ran.</p>';
  const ordered = orderedChecks(checks);
  const failed = ordered.filter((c) => !c.passed);
  const rows = ordered.map((c) => [
    c.passed ? '✓ passed' : '✗ failed',
    `<code>${esc(c.id)}</code>`,
    sev(c.severity),
    esc(c.message),
  ]);
  const lines = [
    `<h2 id="checks">Checks (${failed.length} failed of ${checks.length})</h2>`,
    htmlTable(['', 'Check', 'Severity', 'Message'], rows, {
      rowClass: (i) => (ordered[i]?.passed ? 'passed' : 'failed'),
    }),
  ];
  for (const check of failed) {
    const { shown, more } = bounded(check.evidence, EVIDENCE_LIMIT);
    if (shown.length === 0) continue;
    lines.push(
      `<h3>Evidence for <code>${esc(check.id)}</code></h3>`,
      `<ul>${shown.map((item) => `<li>${evidenceText(item)}</li>`).join('')}</ul>`,
      moreNote(more, 'evidence items'),
    );
  }
  return lines.join('\n');
}

function evidenceText(item: EvidenceItem): string {
  const parts = [
    item.path === undefined
      ? null
      : `path: <code>${esc(item.path)}</code>${item.line === undefined ? '' : `:${item.line}`}`,
    item.path === undefined && item.line !== undefined ? `line ${item.line}` : null,
    item.command === undefined ? null : `command: <code>${esc(item.command)}</code>`,
    item.detail === undefined ? null : esc(item.detail),
  ].filter((part) => part !== null);
  return parts.length > 0 ? parts.join(' · ') : '(empty evidence item)';
}

/** Security alerts: what fired, on what, and the chain of processes that did it. */
export function alertsSection(alerts: readonly Alert[]): string {
  const title = `<h2 id="alerts">Security alerts (${alerts.length})</h2>`;
  if (alerts.length === 0)
    return `${title}\n<p>None: no security rule matched the recorded system calls, network records or diff.</p>`;
  const ordered = [...alerts].sort(
    (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.seq - b.seq,
  );
  const { shown, more } = bounded(ordered, HTML_ROW_LIMIT);
  const blocks = shown.map((a) => {
    const resource = a.path ?? (a.host === undefined ? null : `${a.host}${a.port ? `:${a.port}` : ''}`);
    const chain = bounded(a.process.chain, CHAIN_LIMIT);
    return [
      `<div class="alert alert-${a.severity}">`,
      `<h3>${sev(a.severity)} <code>${esc(a.rule)}</code> <span class="muted">(${a.class}${a.phase === 'tests' ? ', during the tests' : ''})</span></h3>`,
      `<p>${esc(a.message)}${a.count > 1 ? ` <span class="muted">(${a.count} times)</span>` : ''}</p>`,
      `<p class="muted">Call <code>${esc(a.syscall)}</code>${resource === null ? '' : ` on <code>${esc(resource)}</code>`}${a.ts >= 0 ? ` at +${Math.round(a.ts)} ms` : ''}</p>`,
      '<p>Process chain, acting process first:</p>',
      `<ol class="chain">${chain.shown.map((p) => `<li>pid ${p.pid}: <code>${esc(p.exe)}</code> — <code>${esc(shellJoin(p.argv), 200)}</code></li>`).join('')}</ol>`,
      moreNote(chain.more, 'processes up the chain'),
      '</div>',
    ].join('\n');
  });
  return [title, ...blocks, moreNote(more, 'alerts')].join('\n');
}

export function testsSection(report: RunReport): string {
  const { tests } = report;
  const title = '<h2 id="tests">Tests</h2>';
  if (!tests.ran)
    return `${title}\n<p>Did not run${tests.reason === undefined ? '.' : `: ${esc(tests.reason)}`}</p>`;
  const status = tests.passed
    ? '<strong class="sev-pass">✓ passed</strong>'
    : '<strong class="sev-error">✗ failed</strong>';
  const exit = tests.timed_out ? 'timed out' : `exit ${tests.exit_code ?? '?'}`;
  const reason = tests.reason === undefined ? '' : `\n<p>${esc(tests.reason)}</p>`;
  return `${title}\n<p>${status} (${exit}, ${formatDuration(tests.duration_ms)})</p>${reason}`;
}

export function diffSection(report: RunReport): string {
  const { diff } = report;
  const lines = [
    '<h2 id="diff">Diff</h2>',
    `<p>${plural(diff.changed_files, 'file')} changed, +${diff.added} −${diff.deleted} against baseline <code>${esc(diff.baseline_sha.slice(0, 12))}</code>.</p>`,
  ];
  if (diff.patch_truncated)
    lines.push(
      '<p class="warning">The patch was cut at its byte limit; content scans of it fail closed.</p>',
    );
  if (diff.workspace_git_changed)
    lines.push(
      '<p class="warning">The agent removed or replaced the workspace\'s .git; the diff used the harness copy.</p>',
    );
  const { shown, more } = bounded(diff.files, HTML_ROW_LIMIT);
  if (shown.length > 0) {
    const rows = shown.map((f) => [
      f.status,
      `<code>${esc(f.path)}</code>`,
      f.binary ? '' : `+${f.added}`,
      f.binary ? '' : `−${f.deleted}`,
      fileNotes(f),
    ]);
    lines.push(
      htmlTable(['Status', 'File', 'Added', 'Deleted', 'Notes'], rows, { numeric: [2, 3] }),
      moreNote(more, 'files'),
    );
  }
  if (diff.ignored_files.length > 0) {
    const ignored = bounded(diff.ignored_files, HTML_ROW_LIMIT);
    const tail = ignored.more > 0 || diff.ignored_files_truncated ? ', …' : '';
    lines.push(
      `<p>New files hidden by .gitignore: ${ignored.shown.map((f) => `<code>${esc(f)}</code>`).join(', ')}${tail}</p>`,
    );
  }
  return lines.join('\n');
}

function fileNotes(file: DiffFile): string {
  const notes: string[] = [];
  if (file.binary) notes.push('binary');
  if (file.old_path !== undefined) notes.push(`from <code>${esc(file.old_path)}</code>`);
  if (file.link !== undefined) {
    notes.push(
      `symlink → <code>${esc(file.link.target)}</code>${file.link.escapes ? ' <strong class="sev-error">points outside the workspace</strong>' : ''}`,
    );
  }
  return notes.join('; ');
}

export function commandsSection(commands: readonly ReportCommand[]): string {
  const title = '<h2 id="commands">Commands</h2>';
  if (commands.length === 0) return `${title}\n<p>No commands recorded.</p>`;
  const { shown, more } = bounded(commands, HTML_ROW_LIMIT);
  const rows = shown.map((c) => [
    esc(c.role),
    `<code>${esc(shellJoin(c.argv))}</code>`,
    commandEnd(c),
    formatDuration(c.duration_ms),
    commandNotes(c),
  ]);
  return [
    title,
    htmlTable(['Role', 'Command', 'Exit', 'Time', 'Notes'], rows, { numeric: [3] }),
    moreNote(more, 'commands'),
  ].join('\n');
}

function commandEnd(command: ReportCommand): string {
  if (command.blocked) return 'blocked';
  if (command.spawn_error !== undefined) return 'not started';
  if (command.timed_out) return 'timed out';
  if (command.signal !== null) return esc(command.signal);
  return command.exit_code === null ? '?' : String(command.exit_code);
}

function commandNotes(command: ReportCommand): string {
  const notes: string[] = [];
  if (command.spawn_error !== undefined) notes.push(esc(command.spawn_error));
  for (const match of command.policy_matches)
    notes.push(`policy ${esc(match.mode)}: <code>${esc(match.pattern, 80)}</code>`);
  if (command.stdout_truncated) notes.push(`stdout cut (${command.stdout_bytes} bytes)`);
  if (command.stderr_truncated) notes.push(`stderr cut (${command.stderr_bytes} bytes)`);
  return notes.join('; ');
}
