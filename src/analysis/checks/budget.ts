import type { ModelExchange } from '../../evidence/model-evidence.js';
import type { EvidenceItem } from '../types.js';
import { defineCheck } from './define-check.js';

export const budget = defineCheck({
  id: 'budget',
  defaultSeverity: 'error',
  policyKeys: ['budget'],
  doc: 'The run stayed within its `budget` (`max_usd`, `max_tokens`, `max_requests`) of the model through the relay: the relay refuses the request that would go past a cap, and this check fails naming it (unset: no budget).',
  run: (bundle) => {
    const caps = bundle.config.budget;
    if (!caps) return { passed: true, message: 'no budget configured', evidence: [] };
    const refused = (bundle.model?.exchanges ?? []).filter((ex) => ex.kind === 'budget');
    const first = refused[0];
    if (!first) {
      const named = Object.entries(caps)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      return { passed: true, message: `within the budget (${named})`, evidence: [] };
    }
    const why = errorOf(first).replace(/^agentguard budget: /, '');
    const evidence: EvidenceItem[] = refused.slice(0, 5).map((ex) => ({
      detail: `model request ${ex.seq} refused at ${(ex.ts / 1000).toFixed(1)} s: ${ex.response.error ?? 'budget'}`,
    }));
    return {
      passed: false,
      message: `the run reached its budget: ${why}; ${refused.length} model request(s) refused`,
      evidence,
    };
  },
});

function errorOf(ex: ModelExchange): string {
  const e = ex.response.error;
  return typeof e === 'string' ? e : 'a cap was reached';
}
