import { describe, expect, it } from 'vitest';
import type { ModelEvidence } from '../evidence/model-evidence.js';
import type { ReplaySource } from '../evidence/replay-evidence.js';
import { compareReplay } from './replay-compare.js';

const tools = ['exec_command', 'apply_patch'];
const source: ReplaySource = {
  from_run: '20261206-101500-1a2b3c4d',
  from_dir: '/runs/20261206-101500-1a2b3c4d',
  task: 't',
  recorded_result: 'PASS',
  requests: [
    { step: 0, tools_offered: tools, tool_outputs: [] },
    {
      step: 1,
      tools_offered: tools,
      tool_outputs: ['Chunk ID: 8b4199\nWall time: 0.0123 seconds\nOutput:\nok 3 tests'],
    },
  ],
};

type Exchange = ModelEvidence['exchanges'][number];
function exchange(kind: string, step: number, outputs: string[], offered = tools): Exchange {
  return {
    seq: step,
    ts: 0,
    duration_ms: 1,
    kind,
    turn: step + 1,
    request: { step, tools_offered: offered, tool_outputs: outputs },
    response: { text: '', tool_calls: [], stop: 'end_turn' },
  };
}
const model = (...exchanges: Exchange[]): ModelEvidence => ({ exchanges });

describe('compareReplay', () => {
  it('finds no divergence when each request matches, timings and other numbers aside', () => {
    const r = compareReplay(
      source,
      model(
        exchange('turn', 0, []),
        exchange('side', 0, [], []),
        exchange('retry', 0, []),
        exchange('turn', 1, ['Chunk ID: 2e6085\nWall time: 0.0456 seconds\nOutput:\nok 3 tests']),
      ),
      'PASS',
    );
    expect(r).toEqual({
      from_run: source.from_run,
      recorded_result: 'PASS',
      same_verdict: true,
      turns_recorded: 2,
      turns_replayed: 2,
      diverged: null,
    });
  });

  it('names the first turn whose tool output differs in words, and a different verdict', () => {
    const r = compareReplay(
      source,
      model(
        exchange('turn', 0, []),
        exchange('turn', 1, ['Wall time: 0.01 seconds\nOutput:\nnot ok 3 tests']),
      ),
      'FAIL',
    );
    expect(r.same_verdict).toBe(false);
    expect(r.diverged).toMatchObject({ turn: 2, what: 'tool output 1 differs' });
    expect(r.diverged?.replayed).toContain('not ok');
  });

  it('names other tools, another step, a turn past the recording and a stop before its end', () => {
    expect(compareReplay(source, model(exchange('turn', 0, [], ['bash'])), 'PASS').diverged).toMatchObject({
      turn: 1,
      what: 'the agent offered other tools',
      recorded: 'exec_command, apply_patch',
      replayed: 'bash',
    });
    expect(compareReplay(source, model(exchange('turn', 2, [])), 'PASS').diverged?.what).toBe(
      'the conversation was at another step',
    );
    const past = model(
      exchange('turn', 0, []),
      exchange('turn', 1, source.requests[1]?.tool_outputs ?? []),
      exchange('exhausted', 2, ['more']),
    );
    expect(compareReplay(source, past, 'PASS').diverged).toMatchObject({
      turn: 3,
      what: 'the agent asked for a turn past the 2 recorded',
    });
    expect(compareReplay(source, model(exchange('turn', 0, [])), 'PASS').diverged).toMatchObject({
      turn: 2,
      what: 'the agent stopped after 1 of the 2 recorded turns',
    });
  });
});
