import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { REPORT_READERS_VERSION } from '../analysis/test-results/parse-report.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { TestEvidence, TestResults } from '../evidence/types.js';
import { writeJson } from '../evidence/write.js';
import { agentguardVersion } from '../version.js';
import { hashTree } from '../workspace/grader-files.js';
import type { PreparedWorkspace } from '../workspace/prepare.js';

type Expected = NonNullable<TestResults['expected']>;

const CachedSchema = z.object({
  count: z.number().int().nonnegative().nullable(),
  names: z.array(z.string()),
});
type Cached = z.infer<typeof CachedSchema>;

/**
 * The tests a run must run: the count the task declares (`min_tests`), or else every test the
 * untouched baseline runs and does not skip. The baseline's are found by running the test command
 * once on a grading copy of the baseline itself (`runOnBaseline`), and kept in `cacheDir` under a
 * hash of everything that decides them (the baseline commit, the grader files, the installed
 * dependencies, the command), so each task pays for it once. Null when the runner's report cannot
 * be read on the baseline. TAP names carry what a line says (often the failure's details), so for
 * TAP only the count is held.
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
        // The readers of the runners' reports are part of what decides the names.
        agentguardVersion(),
        REPORT_READERS_VERSION,
        ws.baseline_sha,
        cfg.test_command,
        hashTree(ws.grader_dir),
        [...ws.ignored_hashes.values()].map((e) => e.hash).sort(),
      ]),
    )
    .digest('hex');
  const file = path.join(opts.cacheDir, `${key}.json`);
  let cached = readCache(file);
  if (cached === undefined) {
    const run = await opts.runOnBaseline();
    const ran = run.results?.format ? run.results.cases.filter((c) => c.status !== 'skipped') : null;
    // TAP names are whatever the line says, often with the failure's details: only their count is held.
    const named = run.results?.format !== 'tap';
    cached = { count: ran?.length ?? null, names: ran && named ? ran.map((c) => c.name) : [] };
    mkdirSync(opts.cacheDir, { recursive: true });
    writeJson(file, cached);
  }
  return cached.count === null ? null : { source: 'baseline-run', count: cached.count, names: cached.names };
}

/** The cached entry; undefined when there is none readable (one that is corrupt is run again). */
function readCache(file: string): Cached | undefined {
  try {
    const parsed = CachedSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) return parsed.data;
    rmSync(file, { force: true });
  } catch {
    // no entry yet
  }
  return undefined;
}
