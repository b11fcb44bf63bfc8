import type { RunReport } from '../types.js';
import type { OutputTail, WhyReason } from '../why.js';
import type { Block, Inline, ListItem, Section } from './types.js';

/**
 * "Why it failed": the first section of a run that did not pass, so the cause is above the fold.
 * The reasons in the order that decided the verdict, then the last lines of each failing command.
 */
export function whySection(report: RunReport): Section | null {
  const why = report.why;
  if (why === null) return null;
  const blocks: Block[] = [];
  if (why.reasons.length > 0) {
    const more = why.omitted.alerts + why.omitted.tests;
    blocks.push({
      kind: 'list',
      style: 'bullets',
      items: why.reasons.map(reasonItem),
      ...(more > 0 && { more: { count: more, what: 'alerts and tests' } }),
    });
  }
  for (const tail of why.output) blocks.push(tailBlock(tail));
  if (blocks.length === 0) return null;
  return {
    id: 'why',
    nav: 'Why',
    title: report.result === 'ERROR' ? 'Why it ended in error' : 'Why it failed',
    blocks,
  };
}

function reasonItem(reason: WhyReason): ListItem {
  switch (reason.kind) {
    case 'stopped':
      return { content: [{ strong: ['Stopped:'] }, ' ', { text: reason.reason }] };
    case 'alert':
      return {
        content: [
          { severity: reason.severity },
          ' alert ',
          { name: reason.rule },
          reason.phase === 'tests' ? ' (during the tests): ' : ': ',
          { text: reason.message },
        ],
        ...(reason.chain.length > 0 && {
          children: [
            ['by ', ...reason.chain.flatMap((p, i): Inline[] => [i === 0 ? '' : ' ← ', { name: p }])],
          ],
        }),
      };
    case 'test':
      return { content: [`test ${reason.status}: `, { name: reason.name }] };
    case 'check':
      return {
        content: [{ mark: 'failed' }, ' ', reason.id, ` (${reason.severity}): `, { text: reason.message }],
        ...(reason.last_words !== undefined && { children: [['it printed: ', { text: reason.last_words }]] }),
      };
  }
}

function tailBlock(tail: OutputTail): Block {
  const exit = tail.exit_code === null ? '' : `, exit ${tail.exit_code}`;
  return {
    kind: 'subsection',
    title: ['Last lines of ', { name: tail.program }, ` (${tail.role}, ${tail.stream}${exit})`],
    blocks: [{ kind: 'output', lines: tail.lines, omitted: tail.omitted_lines }],
  };
}
