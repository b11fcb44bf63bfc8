import path from 'node:path';
import { analyze } from '../../analysis/analyze.js';
import { CHECK_IDS, type CheckId } from '../../config/check-ids.js';
import type { TracerRequest } from '../../evidence/kinds.js';
import { writeJson, writeText } from '../../evidence/write.js';
import type { RunContext } from '../../pipeline/context.js';
import { readBundle } from '../../pipeline/read-bundle.js';
import { rulesOfRun } from '../../pipeline/rules.js';
import { newRunId } from '../../pipeline/run-id.js';
import { defaultRuleIds, loadCatalog } from '../mutations/catalog.js';
import { type Fired, firedOf } from '../mutations/judge.js';
import { runMutation } from '../mutations/run-mutation.js';
import { diagnosticsDir, shortRunId } from '../mutations/run-mutations.js';
import { ablationHeadline, analyseAblation, type EntryTrials } from './ablation.js';
import { type AblationReport, renderAblationMarkdown } from './ablation-report.js';

export type AblationOptions = {
  only: readonly string[];
  trials: number;
  tracer?: TracerRequest;
};

export type AblationResult = { report: AblationReport; dir: string; jsonFile: string; mdFile: string };

/**
 * `diagnostics ablation`: each selected catalog entry runs `trials` times through the mutation
 * pipeline with every check (the controls); then each control's stored evidence is analysed again
 * once per check with exactly that check not executed. The ablated conditions do not run the tests
 * again: the evidence is the same, only the analysis differs, and the report says so.
 */
export async function runAblation(ctx: RunContext, opts: AblationOptions): Promise<AblationResult> {
  const entries = loadCatalog(defaultRuleIds(), opts.only);
  const started = ctx.now();
  const id = newRunId(started);
  const dir = diagnosticsDir(ctx.outputDir, 'ablation', id);
  const child: RunContext = { ...ctx, outputDir: dir, history: false, log: () => {} };
  const data: EntryTrials[] = [];
  const errored: string[] = [];
  let tracer: string | null = null;
  for (const [i, entry] of entries.entries()) {
    const trials: EntryTrials['trials'] = [];
    for (let trial = 1; trial <= opts.trials; trial++) {
      if (ctx.signal?.aborted) break;
      const run = await runMutation(child, entry, {
        runId: shortRunId(i, trial),
        ...(opts.tracer ? { tracer: opts.tracer } : {}),
      });
      if (run.status === 'errored') {
        errored.push(`${entry.id} (trial ${trial}): ${run.error}`);
        continue;
      }
      tracer ??= run.tracer;
      trials.push({ trial, ...judgeWithout(run.runDir) });
    }
    // Interrupted (SIGINT/SIGTERM): the entries done are analysed, the stop withholds the headline.
    if (ctx.signal?.aborted) {
      errored.push(
        `interrupted at ${entry.id}: ${entries.length - i} of ${entries.length} entries not (fully) run`,
      );
      break;
    }
    data.push({ entry, trials });
    ctx.log(
      `[${i + 1}/${entries.length}] ${entry.id}: ${trials.length} control trial(s) re-judged ${CHECK_IDS.length} ways`,
    );
  }
  const analysis = analyseAblation(data);
  const report: AblationReport = {
    kind: 'ablation-diagnostics',
    id,
    started_at: started.toISOString(),
    duration_ms: ctx.now().getTime() - started.getTime(),
    tracer,
    selected: [...opts.only],
    method:
      'Each control trial is one mutation run with every check. Each ablated condition re-analyses that same stored evidence with exactly one check not executed (scoring over the checks that ran); the tests are not run again, because the evidence would be the same.',
    errored,
    analysis,
    // Headline claims stand only on valid controls (and on every entry carried out).
    ...ablationHeadline(analysis, errored),
    runs: data.flatMap((d, i) =>
      d.trials.map((t) => ({
        entry: d.entry.id,
        trial: t.trial,
        run_dir: path.join('runs', shortRunId(i, t.trial)),
      })),
    ),
  };
  const jsonFile = path.join(dir, 'report.json');
  const mdFile = path.join(dir, 'report.md');
  writeJson(jsonFile, report);
  writeText(mdFile, renderAblationMarkdown(report));
  return { report, dir, jsonFile, mdFile };
}

/** The run's evidence judged with every check, then with each check left out in turn. */
function judgeWithout(runDir: string): { control: Fired; without: Record<CheckId, Fired> } {
  const bundle = readBundle(runDir);
  const rules = rulesOfRun(runDir, bundle.config);
  const full = analyze(bundle, rules);
  const control = firedOf(full);
  // The rules do not depend on which checks run: their alerts are computed once and reused.
  const without = Object.fromEntries(
    CHECK_IDS.map((id) => [
      id,
      firedOf(analyze(bundle, rules, { omitChecks: new Set([id]), alerts: full.alerts })),
    ]),
  ) as Record<CheckId, Fired>;
  return { control, without };
}
