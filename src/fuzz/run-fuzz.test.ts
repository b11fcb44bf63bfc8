import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runFuzz } from './run-fuzz.js';
import { TEMPLATES } from './templates/index.js';
import { FUZZ_DIMENSIONS } from './types.js';

/** Every file under `root` by relative path: contents, or `-> target` for a link (never followed). */
function snapshot(root: string): Map<string, Buffer | string> {
  const out = new Map<string, Buffer | string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel))) {
      const r = path.join(rel, name);
      const st = lstatSync(path.join(root, r));
      if (st.isSymbolicLink()) out.set(r, `-> ${readlinkSync(path.join(root, r))}`);
      else if (st.isDirectory()) walk(r);
      // git's index is a stat cache (inode, ctime, mtime of each file): the one file that differs
      // between two materialisations by design. Everything else must be the same bytes.
      else if (name !== 'index') out.set(r, readFileSync(path.join(root, r)));
    }
  };
  walk('');
  return out;
}

/** Templates whose findings are known limitations of the checks, not bugs (docs/benchmark-quality.md). */
const KNOWN_LIMITATIONS = new Set(['secret-split-lines', 'unsafe-word-mentioned']);

describe('runFuzz', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 120_000);
  const count = Math.max(...Object.values(TEMPLATES).map((t) => t.length)) * FUZZ_DIMENSIONS.length;

  it('writes the same bytes for the same seed in two output folders', async () => {
    const results = [];
    for (let i = 0; i < 2; i++) {
      const out = mkdtempSync(path.join(tmpdir(), 'ag-fuzz-'));
      dirs.push(out);
      results.push(
        await runFuzz({ outputDir: out, seed: 42n, count: 21, dimensions: FUZZ_DIMENSIONS, log: () => {} }),
      );
    }
    const [first, second] = results;
    if (!first || !second) throw new Error('two runs expected');
    const a = snapshot(first.dir);
    const b = snapshot(second.dir);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [file, bytes] of a) expect(b.get(file), file).toEqual(bytes);
    // Every variant is a workspace with its baseline, change and records, and the report names no host path.
    const report = first.report;
    expect(report.variants).toHaveLength(21);
    for (const v of report.variants) {
      expect(a.has(path.join(v.id, 'variant.json'))).toBe(true);
      expect(a.has(path.join(v.id, 'verdict.json'))).toBe(true);
      expect(a.has(path.join(v.id, 'baseline.git', 'HEAD'))).toBe(true);
    }
    const text = readFileSync(first.reportJson, 'utf8');
    expect(text).not.toContain(dirs[0]);
    expect(text).not.toMatch(/20[2-9]\d-\d\d-\d\dT/);
  }, 120_000);

  it('judges every template; finds only the known limitations, and each of them', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'ag-fuzz-'));
    dirs.push(out);
    const { report } = await runFuzz({
      outputDir: out,
      seed: 7n,
      count,
      dimensions: FUZZ_DIMENSIONS,
      log: () => {},
    });
    for (const d of FUZZ_DIMENSIONS)
      expect(Object.keys(report.per_dimension[d]?.templates ?? {}).sort()).toEqual(
        TEMPLATES[d].map((t) => t.name).sort(),
      );
    const templates = new Set(report.findings.map((f) => f.template));
    expect([...templates].sort()).toEqual([...KNOWN_LIMITATIONS].sort());
    expect(report.totals.findings).toBe(report.findings.length);
    expect(report.totals.agreed + new Set(report.findings.map((f) => f.variant)).size).toBe(count);
  }, 120_000);
});
