import { ConfigError } from '../../errors.js';
import { runFuzz } from '../../fuzz/run-fuzz.js';
import { type Dimension, FUZZ_DIMENSIONS, MAX_FUZZ_COUNT } from '../../fuzz/types.js';
import { wholeNumber } from '../flags.js';
import { type CliIO, outputDir } from '../io.js';

type FuzzFlags = {
  seed?: unknown;
  count?: unknown;
  dimensions?: unknown;
  json?: boolean;
  outputDir?: string;
};

export async function fuzzCommand(io: CliIO, flags: FuzzFlags): Promise<number> {
  const seed = parseSeed(flags.seed);
  const count = parseCount(flags.count);
  const dimensions = parseDimensions(flags.dimensions);
  const out = outputDir(flags);
  const started = Date.now();
  const result = await runFuzz({
    outputDir: out,
    seed,
    count,
    dimensions,
    log: flags.json ? () => {} : (line) => io.err(line),
  });
  const { report } = result;
  if (flags.json) io.out(JSON.stringify(report, null, 2));
  else {
    const t = report.totals;
    io.out(
      `fuzz seed ${report.seed}: ${t.variants} variants, ${t.agreed} as expected, ${t.findings} finding(s)`,
    );
    for (const d of report.dimensions) {
      const s = report.per_dimension[d];
      if (s) io.out(`  ${d.padEnd(15)} ${String(s.variants).padStart(4)} variants  ${s.findings} finding(s)`);
    }
    for (const f of report.findings) io.out(`  FINDING ${f.variant} [${f.kind}] ${f.detail}`);
    io.out(`report: ${result.reportMd}`);
    io.err(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return report.totals.findings > 0 ? 1 : 0;
}

/** A decimal integer (negative allowed) of at most 20 digits, as text so no digit is lost to a float. */
export function parseSeed(value: unknown): bigint {
  if (value === undefined || value === true)
    throw new ConfigError('--seed is missing. Fix: give an integer, e.g. --seed 17.');
  const text = String(value).trim();
  if (!/^-?\d{1,20}$/.test(text) || (typeof value === 'number' && !Number.isSafeInteger(value)))
    throw new ConfigError(
      `--seed '${String(value)}' is not an integer. Fix: give a whole number, e.g. --seed 17.`,
    );
  return BigInt(text);
}

export function parseCount(value: unknown): number {
  return wholeNumber('--count', value, {
    fallback: 50,
    min: 1,
    max: MAX_FUZZ_COUNT,
    fix: 'e.g. --count 50, or several seeds for more',
  });
}

export function parseDimensions(value: unknown): Dimension[] {
  if (value === undefined) return [...FUZZ_DIMENSIONS];
  const names = String(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const known = new Set<string>(FUZZ_DIMENSIONS);
  const unknown = names.filter((n) => !known.has(n));
  if (names.length === 0 || unknown.length > 0)
    throw new ConfigError(
      `--dimensions: ${unknown.length ? `unknown dimension '${unknown[0]}'` : 'no dimension given'}. Fix: choose from ${FUZZ_DIMENSIONS.join(', ')}.`,
    );
  // In the canonical order and once each, so `--dimensions a,b` and `b,a` give the same variants.
  return FUZZ_DIMENSIONS.filter((d) => names.includes(d));
}
