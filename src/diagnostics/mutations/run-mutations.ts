import path from 'node:path';
import type { TracerRequest } from '../../evidence/kinds.js';
import { writeJson, writeText } from '../../evidence/write.js';
import type { RunContext } from '../../pipeline/context.js';
import { newRunId } from '../../pipeline/run-id.js';
import { defaultRuleIds, loadCatalog } from './catalog.js';
import { type EntryOutcome, erroredEntry, firedOf, judgeEntry, summarise } from './judge.js';
import { type MutationReport, mutationFindings, renderMutationMarkdown } from './mutation-report.js';
import { runMutation } from './run-mutation.js';

export type MutationsOptions = { only: readonly string[]; tracer?: TracerRequest };

export type MutationsResult = { report: MutationReport; dir: string; jsonFile: string; mdFile: string };

/**
 * A run folder name for the i-th entry. Short on purpose: a run's proxy socket lives in its folder,
 * and a Unix socket path is limited to 107 bytes; the report maps each entry to its folder.
 */
export function shortRunId(index: number, trial?: number): string {
  const n = String(index + 1).padStart(3, '0');
  return trial === undefined ? n : `${n}-${trial}`;
}

/** The folder a diagnostic writes into: `<output>/diagnostics/<kind>/<id>`. */
export function diagnosticsDir(outputDir: string, kind: string, id: string): string {
  return path.join(outputDir, 'diagnostics', kind, id);
}

/**
 * `diagnostics mutations`: validate the catalog (a bad entry or --only id throws ConfigError before
 * anything runs), carry out each selected entry through the run pipeline one after another, judge
 * each against its expectations, and write report.json and report.md beside the entries' runs
 * (`runs/<entry id>/`). History is not written: these are not runs of an agent.
 */
export async function runMutations(ctx: RunContext, opts: MutationsOptions): Promise<MutationsResult> {
  const ruleIds = defaultRuleIds();
  const entries = loadCatalog(ruleIds, opts.only);
  const started = ctx.now();
  const id = newRunId(started);
  const dir = diagnosticsDir(ctx.outputDir, 'mutations', id);
  const child: RunContext = { ...ctx, outputDir: dir, history: false, log: () => {} };
  const outcomes: EntryOutcome[] = [];
  let tracer: string | null = null;
  let sandbox: string | null = null;
  for (const [i, entry] of entries.entries()) {
    // Interrupted (SIGINT/SIGTERM): the entries that ran are reported, the rest are not started.
    if (ctx.signal?.aborted) break;
    const run = await runMutation(child, entry, {
      runId: shortRunId(i),
      ...(opts.tracer ? { tracer: opts.tracer } : {}),
    });
    let outcome: EntryOutcome;
    if (run.status === 'ran') {
      tracer ??= run.tracer;
      sandbox ??= run.sandbox;
      outcome = { ...judgeEntry(entry, firedOf(run.analysis)), run_dir: path.relative(dir, run.runDir) };
    } else outcome = erroredEntry(entry, run.error);
    outcomes.push(outcome);
    ctx.log(`[${i + 1}/${entries.length}] ${entry.id}: ${outcome.status}`);
  }
  const summary = summarise(outcomes, ruleIds);
  const report: MutationReport = {
    kind: 'mutation-diagnostics',
    id,
    started_at: started.toISOString(),
    duration_ms: ctx.now().getTime() - started.getTime(),
    tracer,
    sandbox,
    selected: opts.only.length > 0 ? [...opts.only] : [],
    summary,
    entries: outcomes,
    findings: [
      ...(outcomes.length < entries.length
        ? [`interrupted: ${outcomes.length} of ${entries.length} entries ran before the stop`]
        : []),
      ...mutationFindings(outcomes, summary, opts.only.length === 0 && outcomes.length === entries.length),
    ],
    interrupted: outcomes.length < entries.length,
  };
  const jsonFile = path.join(dir, 'report.json');
  const mdFile = path.join(dir, 'report.md');
  writeJson(jsonFile, report);
  writeText(mdFile, renderMutationMarkdown(report));
  return { report, dir, jsonFile, mdFile };
}
