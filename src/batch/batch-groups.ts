import path from 'node:path';
import { errorMessage } from '../errors.js';
import { readJson } from '../evidence/read.js';
import type { BatchPlan, Group } from '../reports/batch-types.js';
import { readCheckpoint } from './checkpoint.js';
import { BATCH_FILES } from './run-batch.js';
import { buildSummary } from './summary.js';

/**
 * A batch's groups (the agents × tasks cells and each agent overall) from its folder: the plan and
 * the checkpointed rows, the same source and the same `buildSummary` summary.json is written
 * from, so a batch still running or cut short has its grid too. Similarity is left out: it needs
 * the runs' graphs, and the grid does not show it.
 */
export function batchGroups(dir: string): { ok: true; groups: Group[] } | { ok: false; note: string } {
  try {
    const plan = readJson<BatchPlan>(
      path.join(dir, BATCH_FILES.plan),
      'the batch folder is incomplete; start the batch again',
      undefined,
      dir,
    );
    if (plan?.schema_version !== 1 || !Array.isArray(plan.attempts))
      return {
        ok: false,
        note: `${path.join(dir, BATCH_FILES.plan)} is not a batch plan this version reads`,
      };
    const rows = readCheckpoint(path.join(dir, BATCH_FILES.checkpoint));
    return { ok: true, groups: buildSummary(plan, rows, plan.created_at).groups };
  } catch (err) {
    return { ok: false, note: errorMessage(err) };
  }
}
