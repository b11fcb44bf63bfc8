import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ResolvedConfig } from '../config/schema.js';
import type { TestEvidence, TestResults } from '../evidence/types.js';
import { writeJson } from '../evidence/write.js';
import { hashTree } from '../workspace/grader-files.js';
import type { PreparedWorkspace } from '../workspace/prepare.js';

type Expected = NonNullable<TestResults['expected']>;

const CachedSchema = z.object({ names: z.array(z.string()).nullable() });

/**
 * The tests a run must run: the count the task declares (`min_tests`), or else every test the
 * untouched baseline runs and does not skip. The baseline's are found by running the test command
 * once on a grading copy of the baseline itself (`runOnBaseline`), and kept in `cacheDir` under a
 * hash of everything that decides them (the baseline commit, the grader files, the installed
 * dependencies, the command), so each task pays for it once. Null when the runner's report cannot
 * be read, on the baseline as in the run.
 */
export async function expectedTests(opts: {
  cfg: ResolvedConfig;
  ws: PreparedWorkspace;
  cacheDir: string;
  runOnBaseline: () => Promise<TestEvidence>;
}): Promise<Expected | null> {
  const { cfg, ws } = opts;
  if (cfg.min_tests !== undefined) return { source: 'declared', count: cfg.min_tests, names: [] };
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        ws.baseline_sha,
        cfg.test_command,
        hashTree(ws.grader_dir),
        [...ws.ignored_hashes.values()].map((e) => e.hash).sort(),
      ]),
    )
    .digest('hex');
  const file = path.join(opts.cacheDir, `${key}.json`);
  let names = readCache(file);
  if (names === undefined) {
    const run = await opts.runOnBaseline();
    names = run.results?.format
      ? run.results.cases.filter((c) => c.status !== 'skipped').map((c) => c.name)
      : null;
    mkdirSync(opts.cacheDir, { recursive: true });
    writeJson(file, { names });
  }
  return names === null ? null : { source: 'baseline-run', count: names.length, names };
}

/** The cached names; undefined when there is no readable entry (one that is corrupt is run again). */
function readCache(file: string): string[] | null | undefined {
  try {
    const parsed = CachedSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) return parsed.data.names;
    rmSync(file, { force: true });
  } catch {
    // no entry yet
  }
  return undefined;
}
