import type { JoinedStep, TrajectoryJoin } from '../../analysis/trajectory/join.js';
import { bounded, plural } from '../markdown-text.js';
import { joined, paragraph, ROW_LIMIT } from './blocks.js';
import type { Block, Cell, Inline, Section } from './types.js';

const COMMAND_MAX = 120;

/** The model's tool calls beside what their processes did, and what no call explains. */
export function trajectorySection(t: TrajectoryJoin | null): Section | null {
  if (t === null) return null;
  const section = { id: 'trajectory', nav: 'Trajectory', title: 'What the model asked for, and what ran' };
  const seen = t.steps.filter((s) => s.observed !== null).length;
  const blocks: Block[] = [
    paragraph(
      `${plural(t.steps.length, 'tool call')}; ${seen} joined with the processes or writes that carried ${seen === 1 ? 'it' : 'them'}.`,
    ),
  ];
  for (const note of t.notes) blocks.push({ kind: 'paragraph', tone: 'note', content: [{ text: note }] });
  for (const c of t.claims)
    blocks.push({
      kind: 'paragraph',
      tone: 'warning',
      content: ['The final message says “', { text: c.claim }, '”, but ', { text: c.evidence }, '.'],
    });
  const { shown, more } = bounded(t.steps, ROW_LIMIT);
  if (shown.length > 0)
    blocks.push({
      kind: 'table',
      columns: [
        { title: '#', numeric: true },
        { title: 'Tool call' },
        { title: 'Observed' },
        { title: 'Not asked for' },
      ],
      rows: shown.map(stepRow),
      rowTone: shown.map((s) => (s.not_asked.length > 0 ? 'failed' : 'passed')),
      more: { count: more, what: 'tool calls' },
    });
  const u = t.unexplained;
  if (u.process_count > 0 || u.network.length > 0 || u.alerts.length > 0) {
    const items = [
      ...u.alerts.map((rule) => ({
        content: [{ flag: 'alert', icon: 'stop' } as Inline, ' ', { name: rule }],
      })),
      ...u.network.map((dest) => ({ content: ['reached ', { name: dest } as Inline] })),
      ...u.processes.map((argv) => ({ content: [{ name: argv, max: COMMAND_MAX } as Inline] })),
    ];
    blocks.push({
      kind: 'subsection',
      title: [`Activity no tool call explains (${plural(u.process_count, 'process', 'processes')})`],
      blocks: [
        paragraph('Run by the agent itself or by something it started outside a tool call:'),
        { kind: 'list', style: 'bullets', items },
      ],
    });
  }
  return { ...section, blocks };
}

function stepRow(s: JoinedStep): Cell[] {
  const what: Inline[] =
    s.command !== undefined
      ? [{ name: s.command, max: COMMAND_MAX }]
      : s.paths && s.paths.length > 0
        ? joined(
            s.paths.map((p) => [{ name: p }]),
            ', ',
          )
        : [];
  const call: Inline[] = [{ name: s.name }, ...(what.length > 0 ? [': ', ...what] : [])];
  return [String(s.step), call, observedCell(s), s.not_asked.length > 0 ? notAsked(s.not_asked) : '-'];
}

function observedCell(s: JoinedStep): Inline[] {
  const o = s.observed;
  if (o === null) return [{ flag: s.kind === 'other' ? 'not traced' : 'nothing seen', icon: 'warning' }];
  const parts: Inline[][] = [];
  if (o.process_count > 0) parts.push([plural(o.process_count, 'process', 'processes')]);
  if (o.written.length > 0)
    parts.push([
      'wrote ',
      ...joined(
        o.written.slice(0, 5).map((p) => [{ name: p }]),
        ', ',
      ),
    ]);
  if (o.network.length > 0)
    parts.push([
      'reached ',
      ...joined(
        o.network.map((d) => [{ name: d }]),
        ', ',
      ),
    ]);
  return parts.length > 0 ? joined(parts, '; ') : ['no effect recorded'];
}

function notAsked(items: readonly string[]): Inline[] {
  return joined(
    items.map((i) => [{ text: i }]),
    '; ',
  );
}
