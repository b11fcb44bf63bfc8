import { seededRng } from './rng.js';
import { TEMPLATES } from './templates/index.js';
import type { Dimension, Variant } from './types.js';

/**
 * `count` variants for `seed`, the dimensions taken in turn. Within a dimension the templates are
 * taken in turn from an offset the seed draws, so every template appears once the count allows;
 * each template draws its parameters from a stream of its own variant, so adding a template or
 * a dimension does not change the variants of the others. Pure.
 */
export function generateVariants(seed: bigint, count: number, dimensions: readonly Dimension[]): Variant[] {
  const offsets = new Map(
    dimensions.map((d) => [d, seededRng(seed, `offset/${d}`).int(0, TEMPLATES[d].length - 1)]),
  );
  const taken = new Map<Dimension, number>();
  const width = String(count).length;
  const out: Variant[] = [];
  for (let index = 0; index < count; index++) {
    const dimension = dimensions[index % dimensions.length] as Dimension;
    const k = taken.get(dimension) ?? 0;
    taken.set(dimension, k + 1);
    const templates = TEMPLATES[dimension];
    const template = templates[((offsets.get(dimension) ?? 0) + k) % templates.length];
    if (!template) throw new Error(`no template for dimension ${dimension}`);
    const body = template.make(seededRng(seed, `${dimension}/${template.name}/${k}`));
    out.push({
      id: `${String(index + 1).padStart(width, '0')}-${dimension}-${template.name}`,
      index,
      dimension,
      template: template.name,
      ...body,
    });
  }
  return out;
}
