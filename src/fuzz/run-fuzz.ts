import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeJson, writeText } from '../evidence/write.js';
import { loadRunRules } from '../pipeline/rules.js';
import { generateVariants } from './generate.js';
import { judgeVariant, type VariantOutcome, variantConfig } from './judge.js';
import { materialiseVariant, writeBaseTree } from './materialise.js';
import { buildFuzzReport, type FuzzReport, renderFuzzMarkdown } from './report.js';
import type { Dimension } from './types.js';

export type FuzzOptions = {
  outputDir: string;
  seed: bigint;
  count: number;
  dimensions: readonly Dimension[];
  log: (line: string) => void;
};

export type FuzzResult = { report: FuzzReport; dir: string; reportJson: string; reportMd: string };

export const FUZZ_FILES = { json: 'report.json', markdown: 'report.md' } as const;

/**
 * Generate the variants, materialise each as a workspace under
 * `<output>/fuzz/<seed>-<count>/<variant-id>/`, judge it with the run's checks, rules and scoring,
 * and write the report beside them. The folder is made afresh, so a second run with the same seed
 * and count leaves the same bytes.
 */
export async function runFuzz(opts: FuzzOptions): Promise<FuzzResult> {
  const seed = opts.seed.toString();
  const dir = path.join(opts.outputDir, 'fuzz', `${seed}-${opts.count}`);
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  const baseDir = path.join(dir, 'base');
  mkdirSync(baseDir, { recursive: true });
  writeBaseTree(baseDir);
  const variants = generateVariants(opts.seed, opts.count, opts.dimensions);
  // Every variant keeps the default security settings, so one rule set judges them all.
  const first = variants[0];
  const rules = first ? loadRunRules(variantConfig(first)).ruleset : null;
  const outcomes: VariantOutcome[] = [];
  for (const variant of variants) {
    const variantDir = path.join(dir, variant.id);
    const m = await materialiseVariant(variant, baseDir, variantDir);
    const outcome = judgeVariant(variant, m, rules ?? loadRunRules(variantConfig(variant)).ruleset);
    const { id, index, dimension, template, description, policy, ops, commands, expected } = variant;
    writeJson(path.join(variantDir, 'variant.json'), {
      id,
      index,
      dimension,
      template,
      description,
      policy,
      ops,
      commands,
      expected,
    });
    writeJson(path.join(variantDir, 'verdict.json'), outcome);
    outcomes.push(outcome);
    const mark = outcome.disagreements.length === 0 ? 'ok' : 'FINDING';
    opts.log(`${variant.id}: ${outcome.observed.verdict} ${mark}`);
  }
  const report = buildFuzzReport(seed, opts.count, opts.dimensions, outcomes);
  const reportJson = path.join(dir, FUZZ_FILES.json);
  const reportMd = path.join(dir, FUZZ_FILES.markdown);
  writeJson(reportJson, report);
  writeText(reportMd, renderFuzzMarkdown(report));
  return { report, dir, reportJson, reportMd };
}
