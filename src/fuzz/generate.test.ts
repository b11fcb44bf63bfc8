import { describe, expect, it } from 'vitest';
import { generateVariants } from './generate.js';
import { TEMPLATES } from './templates/index.js';
import { FUZZ_DIMENSIONS } from './types.js';

const ALL_TEMPLATES = Object.values(TEMPLATES).reduce((n, t) => n + t.length, 0);

describe('generateVariants', () => {
  it('gives the same variants for the same seed and other variants for another seed', () => {
    const a = generateVariants(17n, 60, FUZZ_DIMENSIONS);
    expect(generateVariants(17n, 60, FUZZ_DIMENSIONS)).toEqual(a);
    const b = generateVariants(18n, 60, FUZZ_DIMENSIONS);
    expect(JSON.stringify(b)).not.toBe(JSON.stringify(a));
  });

  it('takes the dimensions in turn and every template once the count allows', () => {
    const count = ALL_TEMPLATES * FUZZ_DIMENSIONS.length;
    const variants = generateVariants(3n, count, FUZZ_DIMENSIONS);
    expect(variants.slice(0, FUZZ_DIMENSIONS.length).map((v) => v.dimension)).toEqual([...FUZZ_DIMENSIONS]);
    for (const d of FUZZ_DIMENSIONS) {
      const drawn = new Set(variants.filter((v) => v.dimension === d).map((v) => v.template));
      expect([...drawn].sort()).toEqual(TEMPLATES[d].map((t) => t.name).sort());
    }
    expect(new Set(variants.map((v) => v.id)).size).toBe(count);
  });

  it('keeps only the dimensions asked for, and seeds past 2^64 and below 0 work', () => {
    const variants = generateVariants(-123456789012345678901n, 10, ['secret', 'traversal']);
    expect(new Set(variants.map((v) => v.dimension))).toEqual(new Set(['secret', 'traversal']));
    expect(variants[0]?.id).toBe(`01-secret-${variants[0]?.template}`);
  });

  it('a template draws from a stream of its own: another dimension does not change its variants', () => {
    const alone = generateVariants(9n, 4, ['scope']);
    const mixed = generateVariants(9n, 8, ['path', 'scope']).filter((v) => v.dimension === 'scope');
    expect(mixed.map(({ description, ops }) => ({ description, ops }))).toEqual(
      alone.map(({ description, ops }) => ({ description, ops })),
    );
  });

  it('every expectation names only fuzzed checks and a FAIL verdict comes with a failing check', () => {
    for (const v of generateVariants(1n, ALL_TEMPLATES * 3, FUZZ_DIMENSIONS)) {
      if (v.expected.verdict === 'FAIL') expect(v.expected.failing.length).toBeGreaterThan(0);
      expect(v.ops.length).toBeGreaterThan(0);
    }
  });
});
