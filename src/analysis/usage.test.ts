import { describe, expect, it } from 'vitest';
import type { ModelExchange } from '../evidence/model-evidence.js';
import { usageOf } from './usage.js';

const ex = (kind: string, input: number, output: number): ModelExchange => ({
  seq: 1,
  ts: 0,
  duration_ms: 1,
  kind,
  turn: 1,
  request: { input_tokens: input },
  response: { text: '', tool_calls: [], output_tokens: output, stop: 'end_turn' },
});

describe('usageOf', () => {
  const model = {
    exchanges: [ex('turn', 1000, 100), ex('retry', 1000, 0), ex('probe', 5, 0), ex('turn', 2000, 300)],
  };

  it('sums the tokens of the requests the model answered, not of probes', () => {
    expect(usageOf(model)).toMatchObject({
      requests: 3,
      input_tokens: 4000,
      output_tokens: 400,
      cost: null,
      currency: null,
    });
    expect(usageOf(null)).toBeNull();
  });

  it('prices them with the config, to a millionth', () => {
    const usage = usageOf(model, { currency: 'EUR', input_per_million: 3, output_per_million: 15 });
    expect(usage?.cost).toBe(0.018); // 4000 × 3 / 1e6 + 400 × 15 / 1e6
    expect(usage?.currency).toBe('EUR');
  });

  it('says when the record was damaged', () => {
    expect(usageOf({ exchanges: [], problem: 'line 2 is not JSON' })?.source).toMatch(
      /; line 2 is not JSON$/,
    );
  });
});
