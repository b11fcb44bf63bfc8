import { omittedNote } from '../view/blocks.js';
import type { Block, Cell, Inline, ListItem, Section } from '../view/types.js';
import { esc } from './escape.js';
import { htmlTable, moreNote } from './page.js';

/** How report view nodes look in HTML; figures are drawn by the page that owns their data. */
export type Figures = { 'star-graph': () => string };

export function sectionHtml(s: Section, figures: Figures): string {
  return [`<h2 id="${s.id}">${s.title}</h2>`, ...s.blocks.map((b) => blockHtml(b, figures))].join('\n');
}

function blockHtml(b: Block, figures: Figures): string {
  switch (b.kind) {
    case 'paragraph':
      return `<p${b.tone === undefined ? '' : ' class="warning"'}>${inlineHtml(b.content)}</p>`;
    case 'list': {
      const [open, close] = LIST_TAGS[b.style];
      const list = `${open}${b.items.map(itemHtml).join('')}${close}`;
      return b.more === undefined ? list : `${list}\n${moreNote(b.more.count, b.more.what)}`;
    }
    case 'table': {
      const numeric = b.columns.flatMap((c, i) => (c.numeric ? [i] : []));
      const tones = b.rowTone;
      const table = htmlTable(
        b.columns.map((c) => c.title),
        b.rows.map((row) => row.map(cellHtml)),
        { numeric, ...(tones !== undefined && { rowClass: (i: number) => tones[i] }) },
      );
      return b.more === undefined ? table : `${table}\n${moreNote(b.more.count, b.more.what)}`;
    }
    case 'figure':
      return figures[b.figure]();
    case 'output': {
      const note = omittedNote(b.omitted, b.cut);
      const before = b.cut !== 'after' && note !== '' ? `${note}\n` : '';
      const after = b.cut === 'after' && note !== '' ? `\n${note}` : '';
      const pre = `<pre class="output">${esc(before)}${b.lines.map((line) => esc(line)).join('\n')}${esc(after)}</pre>`;
      return b.folded === undefined
        ? pre
        : `<details class="output"><summary>${inlineHtml(b.folded)}</summary>\n${pre}\n</details>`;
    }
    case 'subsection': {
      const body = b.blocks.map((inner) => blockHtml(inner, figures));
      if (b.tone === undefined) return [`<h3>${inlineHtml(b.title)}</h3>`, ...body].join('\n');
      if (b.tone === 'failed')
        return [`<h3><span class="sev-error">✗</span> ${inlineHtml(b.title)}</h3>`, ...body].join('\n');
      return [
        `<div class="alert alert-${b.tone}">`,
        `<h3>${inlineHtml([{ severity: b.tone }])} ${inlineHtml(b.title)}</h3>`,
        ...body,
        '</div>',
      ].join('\n');
    }
  }
}

const LIST_TAGS = {
  facts: ['<ul class="facts">', '</ul>'],
  bullets: ['<ul>', '</ul>'],
  chain: ['<ol class="chain">', '</ol>'],
} as const;

function itemHtml(item: ListItem): string {
  const children =
    item.children === undefined
      ? ''
      : `<ul>${item.children.map((c) => `<li>${inlineHtml(c)}</li>`).join('')}</ul>`;
  return `<li>${inlineHtml(item.content)}${children}</li>`;
}

function cellHtml(c: Cell): string {
  return inlineHtml(Array.isArray(c) ? c : [c]);
}

export function inlineHtml(parts: readonly Inline[]): string {
  return parts.map(pieceHtml).join('');
}

function pieceHtml(p: Inline): string {
  if (typeof p === 'string') return p;
  if ('text' in p) return esc(p.text, p.max);
  if ('name' in p) return `<code>${esc(p.name, p.max)}</code>`;
  if ('code' in p) return `<code>${esc(p.code)}</code>`;
  if ('strong' in p) return `<strong>${inlineHtml(p.strong)}</strong>`;
  if ('mark' in p) return p.mark === 'passed' ? '✓ passed' : '✗ failed';
  if ('verdict' in p)
    return p.verdict === 'passed'
      ? '<strong class="sev-pass">✓ passed</strong>'
      : '<strong class="sev-error">✗ failed</strong>';
  if ('flag' in p) return `<strong class="sev-error">${esc(p.flag)}</strong>`;
  return `<span class="sev-${p.severity}">${p.severity}</span>`;
}
