import type { CheckResult, EvidenceItem } from '../analysis/types.js';
import type { Severity } from '../config/schema.js';
import type { AgentOutcome } from '../evidence/bundle-types.js';
import type { DiffFile } from '../evidence/types.js';
import { activitySection, observationSection, timelineSection } from './markdown-activity.js';
import { alertsSection } from './markdown-alerts.js';
import { bounded, code, formatDuration, md, moreLine, plural, shellJoin, table } from './markdown-text.js';
import type { ReportCommand, RunReport } from './types.js';

/** Rows shown per table before "…and N more". */
export const MARKDOWN_ROW_LIMIT = 50;
const EVIDENCE_LIMIT = 20;

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, error: 1, warning: 2, info: 3 };

/**
 * `report.md`: the page a reviewer reads. Never contains command output or the patch; every value
 * that came from the agent's world is escaped.
 */
export function renderMarkdown(report: RunReport): string {
  const sections = [
    headline(report),
    checksSection(report.checks),
    evidenceSection(report.checks),
    alertsSection(report.alerts),
    testsSection(report),
    diffSection(report),
    commandsSection(report.commands),
    activitySection(report.activity),
    timelineSection(report.timeline),
    observationSection(report.observation),
    artifactsSection(report.artifacts),
  ];
  return `${sections
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.join('\n'))
    .join('\n\n')}\n`;
}

function headline(report: RunReport): string[] {
  const { agent, benchmark, task } = report;
  const icon = report.result === 'PASS' ? '✅' : '❌';
  const agentName = [md(agent.name), agent.version === null ? '' : md(agent.version)]
    .filter(Boolean)
    .join(' ');
  const lines = [
    `# ${icon} ${report.result} · score ${report.score}/100 · ${md(task.name)}`,
    '',
    `**Agent:** ${agentName} (${md(agent.adapter)})${agent.model === null ? '' : ` · **Model:** ${md(agent.model)}`} · **Outcome:** ${outcomeText(agent.outcome)}`,
    '',
    `- Run: ${md(report.run_id)} · started ${md(report.started_at)} · took ${formatDuration(report.duration_ms)}`,
    `- Run directory: ${md(report.run_dir)}`,
    `- Task prompt sha256: ${code(task.prompt_sha256)}${task.prompt_file === undefined ? '' : ` (from ${md(task.prompt_file)})`}`,
  ];
  if (task.description !== undefined) lines.push(`- Description: ${md(task.description)}`);
  const bench = [
    benchmark.id === null ? null : md(benchmark.id),
    benchmark.version === null ? null : `version ${md(benchmark.version)}`,
    benchmark.category === null ? null : `category ${md(benchmark.category)}`,
    benchmark.difficulty === null ? null : `difficulty ${md(benchmark.difficulty)}`,
    benchmark.tags.length === 0 ? null : `tags ${benchmark.tags.map((tag) => md(tag)).join(', ')}`,
  ].filter((part) => part !== null);
  if (bench.length > 0) lines.push(`- Benchmark: ${bench.join(' · ')}`);
  if (report.deductions.length > 0) {
    const parts = report.deductions.map((d) => `${md(d.id)} −${d.points} (${d.severity})`);
    lines.push(`- Deductions: ${parts.join(', ')}`);
  }
  if (report.isolation_warning !== null) {
    lines.push('', `> ⚠️ **Not isolated:** ${md(report.isolation_warning)}`);
  }
  return lines;
}

function outcomeText(outcome: AgentOutcome): string {
  switch (outcome.status) {
    case 'completed':
      return 'completed (exit 0)';
    case 'failed':
      return `failed (${outcome.signal === null ? `exit ${outcome.exit_code ?? '?'}` : `signal ${md(outcome.signal)}`})`;
    case 'timed-out':
      return `timed out after ${outcome.timeout_seconds} s`;
    case 'blocked':
      return `blocked: ${md(outcome.reason)}`;
    case 'errored':
      return `errored: ${md(outcome.error)}`;
    case 'stopped':
    case 'none':
      return md(outcome.reason);
  }
}

/** Failed first, then by severity, then as the analysis listed them. */
function orderedChecks(checks: CheckResult[]): CheckResult[] {
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

function checksSection(checks: CheckResult[]): string[] {
  const failed = checks.filter((check) => !check.passed).length;
  const rows = orderedChecks(checks).map((check) => [
    check.passed ? '✅' : '❌',
    md(check.id),
    check.severity,
    md(check.message),
  ]);
  if (rows.length === 0) return ['## Checks', '', 'No checks ran.'];
  return [
    `## Checks (${failed} failed of ${checks.length})`,
    '',
    ...table(['', 'Check', 'Severity', 'Message'], rows),
  ];
}

function evidenceSection(checks: CheckResult[]): string[] {
  const failed = orderedChecks(checks).filter((check) => !check.passed);
  if (failed.length === 0) return [];
  const lines = ['## Evidence for failed checks'];
  for (const check of failed) {
    lines.push('', `### ❌ ${md(check.id)}`, '');
    const { shown, more } = bounded(check.evidence, EVIDENCE_LIMIT);
    if (shown.length === 0) lines.push('- (no evidence items recorded)');
    for (const item of shown) lines.push(`- ${evidenceText(item)}`);
    if (more > 0) lines.push(`- …and ${more} more`);
  }
  return lines;
}

function evidenceText(item: EvidenceItem): string {
  const parts = [
    item.path === undefined
      ? null
      : `path: ${md(item.path)}${item.line === undefined ? '' : `:${item.line}`}`,
    item.path === undefined && item.line !== undefined ? `line: ${item.line}` : null,
    item.command === undefined ? null : `command: ${md(item.command)}`,
    item.detail === undefined ? null : md(item.detail),
  ].filter((part) => part !== null);
  return parts.length > 0 ? parts.join(' · ') : '(empty evidence item)';
}

function testsSection(report: RunReport): string[] {
  const { tests } = report;
  if (!tests.ran)
    return ['## Tests', '', `Did not run${tests.reason === undefined ? '.' : `: ${md(tests.reason)}`}`];
  const status = tests.passed ? '✅ passed' : '❌ failed';
  const exit = tests.timed_out ? 'timed out' : `exit ${tests.exit_code ?? '?'}`;
  const lines = ['## Tests', '', `${status} (${exit}, ${formatDuration(tests.duration_ms)})`];
  if (tests.reason !== undefined) lines.push('', md(tests.reason));
  return lines;
}

function diffSection(report: RunReport): string[] {
  const { diff } = report;
  const lines = [
    '## Diff',
    '',
    `${plural(diff.changed_files, 'file')} changed, +${diff.added} −${diff.deleted} against baseline ${code(diff.baseline_sha.slice(0, 12))}.`,
  ];
  if (diff.patch_truncated)
    lines.push('', '> The patch was cut at its byte limit; content scans of it fail closed.');
  if (diff.workspace_git_changed) {
    lines.push('', "> ⚠️ The agent removed or replaced the workspace's .git; the diff used the harness copy.");
  }
  const { shown, more } = bounded(diff.files, MARKDOWN_ROW_LIMIT);
  if (shown.length > 0) {
    const rows = shown.map((file) => [
      file.status,
      md(file.path),
      file.binary ? '' : `+${file.added}`,
      file.binary ? '' : `−${file.deleted}`,
      fileNotes(file),
    ]);
    lines.push(
      '',
      ...table(['Status', 'File', 'Added', 'Deleted', 'Notes'], rows),
      ...moreLine(more, 'files'),
    );
  }
  if (diff.ignored_files.length > 0) {
    const ignored = bounded(diff.ignored_files, MARKDOWN_ROW_LIMIT);
    const tail = ignored.more > 0 || diff.ignored_files_truncated ? ', …' : '';
    lines.push('', `New files hidden by .gitignore: ${ignored.shown.map((f) => md(f)).join(', ')}${tail}`);
  }
  return lines;
}

function fileNotes(file: DiffFile): string {
  const notes: string[] = [];
  if (file.binary) notes.push('binary');
  if (file.old_path !== undefined) notes.push(`from ${md(file.old_path)}`);
  if (file.link !== undefined) {
    notes.push(
      `symlink → ${md(file.link.target)}${file.link.escapes ? ' ⚠️ points outside the workspace' : ''}`,
    );
  }
  return notes.join('; ');
}

function commandsSection(commands: ReportCommand[]): string[] {
  if (commands.length === 0) return ['## Commands', '', 'No commands recorded.'];
  const { shown, more } = bounded(commands, MARKDOWN_ROW_LIMIT);
  const rows = shown.map((command) => [
    command.role,
    md(shellJoin(command.argv)),
    commandEnd(command),
    formatDuration(command.duration_ms),
    commandNotes(command),
  ]);
  return [
    '## Commands',
    '',
    ...table(['Role', 'Command', 'Exit', 'Time', 'Notes'], rows),
    ...moreLine(more, 'commands'),
  ];
}

function commandEnd(command: ReportCommand): string {
  if (command.blocked) return 'blocked';
  if (command.spawn_error !== undefined) return 'not started';
  if (command.timed_out) return 'timed out';
  if (command.signal !== null) return md(command.signal);
  return command.exit_code === null ? '?' : String(command.exit_code);
}

function commandNotes(command: ReportCommand): string {
  const notes: string[] = [];
  if (command.spawn_error !== undefined) notes.push(md(command.spawn_error));
  for (const match of command.policy_matches) notes.push(`policy ${match.mode}: ${md(match.pattern, 80)}`);
  if (command.stdout_truncated) notes.push(`stdout cut (${command.stdout_bytes} bytes)`);
  if (command.stderr_truncated) notes.push(`stderr cut (${command.stderr_bytes} bytes)`);
  return notes.join('; ');
}

function artifactsSection(artifacts: string[]): string[] {
  if (artifacts.length === 0) return [];
  return ['## Artifacts', '', ...artifacts.map((name) => `- ${md(name)}`)];
}
