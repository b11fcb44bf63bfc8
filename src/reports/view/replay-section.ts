import type { ReplayComparison } from '../../analysis/replay-compare.js';
import { paragraph } from './blocks.js';
import type { Block, Section } from './types.js';

/** A model replay beside its recording: the verdicts, and the first turn where the agent asked otherwise. */
export function replaySection(r: ReplayComparison | null | undefined): Section | null {
  if (!r) return null;
  const blocks: Block[] = [
    paragraph(
      'The model’s answers were replayed offline from run ',
      { name: r.from_run },
      ` (${r.turns_recorded} recorded turns, ${r.turns_replayed} answered). Recorded verdict `,
      { code: r.recorded_result },
      ': ',
      { verdict: r.same_verdict ? 'passed' : 'failed' },
      r.same_verdict ? ' the same.' : ' not the same.',
    ),
  ];
  const d = r.diverged;
  if (d === null)
    blocks.push(paragraph('Every request the agent sent matched the recording’s, turn by turn.'));
  else {
    blocks.push({
      kind: 'paragraph',
      tone: 'warning',
      content: [`The agent diverged at turn ${d.turn}: `, { text: d.what }, '.'],
    });
    const items = [
      ...(d.recorded !== null ? [{ content: ['recorded: ', { text: d.recorded }] }] : []),
      ...(d.replayed !== null ? [{ content: ['replayed: ', { text: d.replayed }] }] : []),
    ];
    if (items.length > 0) blocks.push({ kind: 'list', style: 'facts', items });
  }
  return { id: 'replay', nav: 'Replay', title: 'Model replay', blocks };
}
