import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { BENCHMARKS } from './exec-cli.js';

/** What the shipped registry holds, counted from it: a new attack pair changes the counts, not the tests. */
export function shippedRegistryCounts(): { families: number; configs: number; contracts: number } {
  const families = (
    parse(readFileSync(path.join(BENCHMARKS, 'registry.yaml'), 'utf8')) as {
      families: { contract?: string; versions: { configs: string[] }[] }[];
    }
  ).families;
  return {
    families: families.length,
    configs: families.flatMap((f) => f.versions.flatMap((v) => v.configs)).length,
    contracts: families.filter((f) => f.contract !== undefined).length,
  };
}
