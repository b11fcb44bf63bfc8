import { describe, expect, it } from 'vitest';
import type { ModelExchange } from '../evidence/model-evidence.js';
import type { NetworkRecord } from '../evidence/types.js';
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

  it('without a scripted model, sums what the proxy read from plain-HTTP answers, cached input at its own price', () => {
    const at = (
      usage: NetworkRecord['usage'],
      protocol: NetworkRecord['protocol'] = 'http',
    ): NetworkRecord => ({
      ts: 1,
      host: 'llm.local',
      port: 8000,
      protocol,
      decision: 'allowed',
      reason: 'allowlisted',
      ...(usage ? { usage } : {}),
    });
    const network = [
      at({ api: 'openai-chat', input_tokens: 1000, output_tokens: 100, cached_tokens: 600 }),
      at({ api: 'openai-chat', input_tokens: 2000, output_tokens: 300, cached_tokens: 0 }),
      at(undefined),
      at(undefined, 'connect'),
    ];
    const usage = usageOf(
      null,
      { currency: 'USD', input_per_million: 2, cached_input_per_million: 0.5, output_per_million: 8 },
      network,
    );
    expect(usage).toMatchObject({
      requests: 2,
      input_tokens: 3000,
      output_tokens: 400,
      cached_tokens: 600,
      currency: 'USD',
    });
    // 2400 × 2 + 600 × 0.5 + 400 × 8, per million
    expect(usage?.cost).toBe(0.0083);
    expect(usage?.source).toBe(
      "the provider's usage fields (openai-chat) in 2 plain-HTTP answer(s) the proxy forwarded; 1 HTTPS connection(s) the proxy cannot read are not counted",
    );
    expect(usageOf(null, undefined, [at(undefined), at(undefined, 'connect')])).toBeNull();
    // The scripted model's own record wins over what the proxy saw of it.
    expect(usageOf(model, undefined, network)?.input_tokens).toBe(4000);
  });
});
