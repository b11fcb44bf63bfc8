import { code, md, moreLine, table } from './markdown-text.js';
import { omittedNote } from './view/blocks.js';
import type { Block, Cell, Headline, Inline, ListItem, ReportView, Section } from './view/types.js';

/**
 * `report.md`: the page a reviewer reads, rendered from the report view. Never contains the patch,
 * and command output only as the bounded last lines under "Why it failed"; every value that came
 * from the agent's world is escaped by `md` or fenced.
 */
export function renderMarkdown(view: ReportView): string {
  const parts = [headline(view.headline), ...view.sections.map(section)];
  return `${parts
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.join('\n'))
    .join('\n\n')}\n`;
}

function headline(h: Headline): string[] {
  const lines = [
    `# ${h.passed ? '✅' : '❌'} ${h.result} · score ${h.score}/100 · ${md(h.task)}`,
    '',
    inline(h.lead),
    '',
    ...h.facts.map((fact) => `- ${inline(fact)}`),
  ];
  if (h.warning !== null) lines.push('', `> ⚠️ **${h.warning.title}:** ${inline(h.warning.content)}`);
  return lines;
}

/** A section with nothing to show in text (only a figure) is left out. */
function section(s: Section): string[] {
  const body = blocks(s.blocks);
  return body.length === 0 ? [] : [`## ${s.title}`, '', ...body];
}

function blocks(list: readonly Block[]): string[] {
  return list
    .map(block)
    .filter((lines) => lines.length > 0)
    .flatMap((lines, i) => (i === 0 ? lines : ['', ...lines]));
}

const TONE_ICON = { failed: '❌', critical: '🚨', error: '🚨', warning: '⚠️', info: '⚠️' } as const;

function block(b: Block): string[] {
  switch (b.kind) {
    case 'paragraph': {
      const text = inline(b.content);
      if (b.tone === 'note') return [`> ${text}`];
      if (b.tone === 'warning') return [`> ⚠️ ${text}`];
      return [text];
    }
    case 'list':
      return [
        ...b.items.flatMap(listItem),
        ...(b.more !== undefined && b.more.count > 0 ? [`- …and ${b.more.count} more`] : []),
      ];
    case 'table':
      return [
        ...table(
          b.columns.map((c) => c.title),
          b.rows.map((row) => row.map(cell)),
        ),
        ...moreLine(b.more?.count ?? 0, b.more?.what ?? ''),
      ];
    case 'figure':
      return [];
    case 'output': {
      const title = b.folded === undefined ? [] : [`#### ${inline(b.folded)}`, ''];
      return [...title, ...outputBlock(b.lines, omittedNote(b.omitted, b.cut), b.cut)];
    }
    case 'subsection': {
      const icon = b.tone === undefined ? '' : `${TONE_ICON[b.tone]} `;
      return [`### ${icon}${inline(b.title)}`, '', ...blocks(b.blocks)];
    }
  }
}

/** A fenced block longer than any run of backticks in the lines, so nothing inside can close it. */
function outputBlock(lines: readonly string[], note: string, cut: 'before' | 'after' | undefined): string[] {
  const longest = Math.max(
    0,
    ...lines.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((r) => r.length))),
  );
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const noted = note === '' ? [] : [note];
  return cut === 'after'
    ? [`${fence}text`, ...lines, ...noted, fence]
    : [`${fence}text`, ...noted, ...lines, fence];
}

function listItem(item: ListItem): string[] {
  return [`- ${inline(item.content)}`, ...(item.children ?? []).map((child) => `  - ${inline(child)}`)];
}

function cell(c: Cell): string {
  return Array.isArray(c) ? inline(c) : inline([c]);
}

function inline(parts: readonly Inline[]): string {
  return parts.map(piece).join('');
}

function piece(p: Inline): string {
  if (typeof p === 'string') return p;
  if ('text' in p) return md(p.text, p.max);
  if ('name' in p) return md(p.name, p.max);
  if ('code' in p) return code(p.code);
  if ('strong' in p) return `**${inline(p.strong)}**`;
  if ('mark' in p) return p.mark === 'passed' ? '✅' : '❌';
  if ('verdict' in p) return p.verdict === 'passed' ? '✅ passed' : '❌ failed';
  if ('flag' in p) return `${p.icon === 'stop' ? '⛔' : '⚠️'} ${md(p.flag)}`;
  return p.severity;
}
