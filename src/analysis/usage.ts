import { costOf } from '../config/pricing.js';
import type { Pricing } from '../config/schema.js';
import type { ModelEvidence } from '../evidence/model-evidence.js';
import type { NetworkRecord } from '../evidence/types.js';

/** What the model was asked to read and write in a run, and what that cost at the config's prices. */
export type RunUsage = {
  /** Exchanges that were the agent's turns (retries and side requests included: they are billed too). */
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Input tokens (of input_tokens) served from a prompt cache; the scripted model has none. */
  cached_tokens: number;
  /** Where the numbers come from, and how exact they are. */
  source: string;
  /** At the config's `pricing`; null without one. */
  cost: number | null;
  currency: string | null;
};

const COUNTED = new Set(['turn', 'retry', 'side', 'loop', 'exhausted']);

/**
 * Token use in a run: from the scripted model's record when the run had one, else from the usage
 * fields of the provider answers the proxy read (plain HTTP only: an HTTPS tunnel is opaque, and
 * the source says how many there were). Null when neither says anything. Pure.
 */
export function usageOf(
  model: ModelEvidence | null,
  pricing?: Pricing,
  network: readonly NetworkRecord[] = [],
): RunUsage | null {
  if (model === null) return wireUsageOf(network, pricing);
  if (model.exchanges.some((ex) => ex.kind === 'relayed')) return relayUsageOf(model, pricing);
  let input = 0;
  let output = 0;
  let requests = 0;
  for (const ex of model.exchanges) {
    if (!COUNTED.has(ex.kind)) continue;
    requests++;
    input += ex.request?.input_tokens ?? 0;
    output += ex.response.output_tokens ?? 0;
  }
  return priced(
    { requests, input_tokens: input, output_tokens: output, cached_tokens: 0 },
    `the scripted model's record (tokens approximate: characters / 4)${model.problem ? `; ${model.problem}` : ''}`,
    pricing,
  );
}

/** Through the relay: the provider's own counts, read from every answer it forwarded. Exact. */
function relayUsageOf(model: ModelEvidence, pricing?: Pricing): RunUsage {
  const relayed = model.exchanges.filter((ex) => ex.kind === 'relayed');
  const sum = (field: 'input_tokens' | 'output_tokens' | 'cached_tokens') =>
    relayed.reduce((n, ex) => n + (ex.usage?.[field] ?? 0), 0);
  const unstated = relayed.filter((ex) => !ex.usage).length;
  return priced(
    {
      requests: relayed.length,
      input_tokens: sum('input_tokens'),
      output_tokens: sum('output_tokens'),
      cached_tokens: sum('cached_tokens'),
    },
    `the provider's usage fields in the ${relayed.length} answer(s) agentguard's relay forwarded (exact)${unstated > 0 ? `; ${unstated} answer(s) stated none` : ''}${model.problem ? `; ${model.problem}` : ''}`,
    pricing,
  );
}

function wireUsageOf(network: readonly NetworkRecord[], pricing?: Pricing): RunUsage | null {
  const answers = network.filter((r) => r.usage !== undefined);
  if (answers.length === 0) return null;
  const sum = (field: 'input_tokens' | 'output_tokens' | 'cached_tokens') =>
    answers.reduce((n, r) => n + (r.usage?.[field] ?? 0), 0);
  const apis = [...new Set(answers.map((r) => r.usage?.api))].join(', ');
  const tunnels = network.filter((r) => r.protocol === 'connect' && r.decision === 'allowed').length;
  const unread = tunnels > 0 ? `; ${tunnels} HTTPS connection(s) the proxy cannot read are not counted` : '';
  return priced(
    {
      requests: answers.length,
      input_tokens: sum('input_tokens'),
      output_tokens: sum('output_tokens'),
      cached_tokens: sum('cached_tokens'),
    },
    `the provider's usage fields (${apis}) in ${answers.length} plain-HTTP answer(s) the proxy forwarded${unread}`,
    pricing,
  );
}

function priced(
  counts: Pick<RunUsage, 'requests' | 'input_tokens' | 'output_tokens' | 'cached_tokens'>,
  source: string,
  pricing?: Pricing,
): RunUsage {
  const { input_tokens: input, cached_tokens: cached, output_tokens: output } = counts;
  return {
    ...counts,
    source,
    cost: pricing ? costOf(pricing, input - cached, cached, output) : null,
    currency: pricing?.currency ?? null,
  };
}
