import type { DiffFile } from '../../evidence/types.js';
import { bounded, formatDuration, plural, shellJoin } from '../markdown-text.js';
import type { ReportCommand, RunReport } from '../types.js';
import { joined, paragraph, ROW_LIMIT } from './blocks.js';
import type { Block, Inline, Section } from './types.js';

export function testsSection(report: RunReport): Section {
  const { tests } = report;
  const section = { id: 'tests', nav: 'Tests', title: 'Tests' };
  if (!tests.ran) {
    const why: Inline[] = tests.reason === undefined ? ['.'] : [': ', { text: tests.reason }];
    return { ...section, blocks: [paragraph('Did not run', ...why)] };
  }
  // With the harness's sentinel test in place, an honest run's status is the runner's "a test failed".
  const sentinel = tests.results?.sentinel?.failed.length
    ? ", the harness's sentinel test failing as it must"
    : '';
  const exit = tests.timed_out ? 'timed out' : `exit ${tests.exit_code ?? '?'}${sentinel}`;
  const blocks = [
    paragraph(
      { verdict: tests.passed ? 'passed' : 'failed' },
      ` (${exit}, ${formatDuration(tests.duration_ms)})`,
    ),
  ];
  if (tests.reason !== undefined) blocks.push(paragraph({ text: tests.reason }));
  return { ...section, blocks };
}

export function diffSection(report: RunReport): Section {
  const { diff } = report;
  const blocks: Block[] = [
    paragraph(
      `${plural(diff.changed_files, 'file')} changed, +${diff.added} −${diff.deleted} against baseline `,
      { code: diff.baseline_sha.slice(0, 12) },
      '.',
    ),
  ];
  if (diff.patch_truncated) {
    blocks.push({
      kind: 'paragraph',
      tone: 'note',
      content: ['The patch was cut at its byte limit; content scans of it fail closed.'],
    });
  }
  if (diff.workspace_git_changed) {
    blocks.push({
      kind: 'paragraph',
      tone: 'warning',
      content: ["The agent removed or replaced the workspace's .git; the diff used the harness copy."],
    });
  }
  const { shown, more } = bounded(diff.files, ROW_LIMIT);
  if (shown.length > 0) {
    blocks.push({
      kind: 'table',
      columns: [
        { title: 'Status' },
        { title: 'File' },
        { title: 'Added', numeric: true },
        { title: 'Deleted', numeric: true },
        { title: 'Notes' },
      ],
      rows: shown.map((file) => [
        file.status,
        { name: file.path },
        file.binary ? '' : `+${file.added}`,
        file.binary ? '' : `−${file.deleted}`,
        fileNotes(file),
      ]),
      more: { count: more, what: 'files' },
    });
  }
  for (const file of diff.hunks ?? []) {
    blocks.push({
      kind: 'output',
      lines: file.lines,
      omitted: file.omitted,
      cut: 'after',
      folded: [{ name: file.path }],
    });
  }
  if ((diff.hunks_omitted_files ?? 0) > 0) {
    blocks.push(
      paragraph(
        `The changes of ${plural(diff.hunks_omitted_files ?? 0, 'more file')} did not fit; diff.patch has them all.`,
      ),
    );
  }
  if (diff.ignored_files.length > 0) {
    const ignored = bounded(diff.ignored_files, ROW_LIMIT);
    const tail = ignored.more > 0 || diff.ignored_files_truncated ? ', …' : '';
    const names = ignored.shown.map((name): Inline[] => [{ name }]);
    blocks.push(paragraph('New files hidden by .gitignore: ', ...joined(names, ', '), tail));
  }
  return { id: 'diff', nav: 'Diff', title: 'Diff', blocks };
}

function fileNotes(file: DiffFile): Inline[] {
  const notes: Inline[][] = [];
  if (file.binary) notes.push(['binary']);
  if (file.old_path !== undefined) notes.push(['from ', { name: file.old_path }]);
  if (file.link !== undefined) {
    notes.push([
      'symlink → ',
      { name: file.link.target },
      ...(file.link.escapes ? [' ', { flag: 'points outside the workspace', icon: 'warning' } as const] : []),
    ]);
  }
  return joined(notes, '; ');
}

export function commandsSection(commands: readonly ReportCommand[]): Section {
  const section = { id: 'commands', nav: 'Commands', title: 'Commands' };
  if (commands.length === 0) return { ...section, blocks: [paragraph('No commands recorded.')] };
  const { shown, more } = bounded(commands, ROW_LIMIT);
  return {
    ...section,
    blocks: [
      {
        kind: 'table',
        columns: [
          { title: 'Role' },
          { title: 'Command' },
          { title: 'Exit' },
          { title: 'Time', numeric: true },
          { title: 'Notes' },
        ],
        rows: shown.map((command) => [
          command.role,
          { name: shellJoin(command.argv) },
          commandEnd(command),
          formatDuration(command.duration_ms),
          commandNotes(command),
        ]),
        more: { count: more, what: 'commands' },
      },
    ],
  };
}

function commandEnd(command: ReportCommand): Inline {
  if (command.blocked) return 'blocked';
  if (command.spawn_error !== undefined) return 'not started';
  if (command.timed_out) return 'timed out';
  if (command.signal !== null) return { text: command.signal };
  return command.exit_code === null ? '?' : String(command.exit_code);
}

function commandNotes(command: ReportCommand): Inline[] {
  const notes: Inline[][] = [];
  if (command.spawn_error !== undefined) notes.push([{ text: command.spawn_error }]);
  for (const match of command.policy_matches)
    notes.push([`policy ${match.mode}: `, { name: match.pattern, max: 80 }]);
  if (command.stdout_truncated) notes.push([`stdout cut (${command.stdout_bytes} bytes)`]);
  if (command.stderr_truncated) notes.push([`stderr cut (${command.stderr_bytes} bytes)`]);
  return joined(notes, '; ');
}
