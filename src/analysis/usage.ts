import type { Pricing } from '../config/schema.js';
import type { ModelEvidence } from '../evidence/model-evidence.js';

/** What the model was asked to read and write in a run, and what that cost at the config's prices. */
export type RunUsage = {
  /** Exchanges that were the agent's turns (retries and side requests included: they are billed too). */
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Input tokens served from a prompt cache; the scripted model has none. */
  cached_tokens: number;
  /** Where the numbers come from, and how exact they are. */
  source: string;
  /** At the config's `pricing`; null without one. */
  cost: number | null;
  currency: string | null;
};

const COUNTED = new Set(['turn', 'retry', 'side', 'loop', 'exhausted']);

/** Token use from the scripted model's record, or null when the run had no scripted model. Pure. */
export function usageOf(model: ModelEvidence | null, pricing?: Pricing): RunUsage | null {
  if (model === null) return null;
  let input = 0;
  let output = 0;
  let requests = 0;
  for (const ex of model.exchanges) {
    if (!COUNTED.has(ex.kind)) continue;
    requests++;
    input += ex.request?.input_tokens ?? 0;
    output += ex.response.output_tokens ?? 0;
  }
  const cached = 0;
  return {
    requests,
    input_tokens: input,
    output_tokens: output,
    cached_tokens: cached,
    source: `the scripted model's record (tokens approximate: characters / 4)${model.problem ? `; ${model.problem}` : ''}`,
    cost: pricing ? costOf(pricing, input - cached, cached, output) : null,
    currency: pricing?.currency ?? null,
  };
}

function costOf(p: Pricing, input: number, cached: number, output: number): number {
  const cachedPrice = p.cached_input_per_million ?? p.input_per_million;
  const raw = (input * p.input_per_million + cached * cachedPrice + output * p.output_per_million) / 1e6;
  // To a millionth of the currency unit: enough for any price list, stable in JSON.
  return Math.round(raw * 1e6) / 1e6;
}
