import type { Pricing } from './schema.js';

/**
 * What tokens cost at the config's prices, to a millionth of the currency unit (enough for any
 * price list, stable in JSON). `input` excludes the cached input tokens, priced apart.
 */
export function costOf(p: Pricing, input: number, cached: number, output: number): number {
  const cachedPrice = p.cached_input_per_million ?? p.input_per_million;
  const raw = (input * p.input_per_million + cached * cachedPrice + output * p.output_per_million) / 1e6;
  return Math.round(raw * 1e6) / 1e6;
}
