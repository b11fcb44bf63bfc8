import os from 'node:os';
import path from 'node:path';
import { runAudit } from '../../audit/run-audit.js';
import { staticFindings } from '../../audit/static-audit.js';
import { auditDir, writeAudit } from '../../audit/write-audit.js';
import { ConfigError } from '../../errors.js';
import { stopReasonOf } from '../../exec/interrupt.js';
import { signalExitCode } from '../../exec/shutdown.js';
import { newRunId } from '../../pipeline/run-id.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { loadRegistry } from '../../registry/registry-file.js';
import { validateRegistry } from '../../registry/validate-registry.js';
import { renderRunAuditMarkdown, renderStaticAuditMarkdown } from '../../reports/audit-markdown.js';
import type { FindingSeverity, RunAudit, StaticAudit } from '../../reports/audit-types.js';
import { type CliIO, type GlobalOptions, oneLine, outputDir, runContext } from '../io.js';
import { checkRepoOutsideOutput } from '../output-dir.js';
import { UsageError } from '../usage-error.js';
import { type BatchFlags, batchOptions, countFlag, quietProgress } from './batch-run.js';
import { registryFile, selectFamilies } from './registry.js';

type AuditOptions = GlobalOptions &
  BatchFlags & {
    registry?: string;
    family?: string | string[];
    category?: string;
    tag?: string;
    strict?: boolean;
    json?: boolean;
  };

function loadSelection(opts: AuditOptions) {
  const registry = loadRegistry(registryFile(opts));
  const selected = selectFamilies(registry, opts);
  if (selected.length === 0)
    throw new UsageError('the filter selects no family. Fix: loosen --family/--category/--tag.');
  const validation = validateRegistry(registry, new Set(selected.map((f) => f.id)));
  return { registry, validation };
}

const countBy = (severities: readonly FindingSeverity[]): Record<FindingSeverity, number> => ({
  error: severities.filter((s) => s === 'error').length,
  warning: severities.filter((s) => s === 'warning').length,
  skipped: severities.filter((s) => s === 'skipped').length,
});

/** Exit 2 when the registry or a contract is bad input, 1 with any other finding, 0 clean. */
export function auditStatic(io: CliIO, opts: AuditOptions): number {
  const { registry, validation } = loadSelection(opts);
  const findings = staticFindings(registry, validation);
  const now = new Date();
  const audit: StaticAudit = {
    schema_version: 1,
    audit_id: newRunId(now),
    kind: 'static',
    registry: registry.file,
    created_at: now.toISOString(),
    families: validation.families.map((vf) => ({
      id: vf.family.id,
      contract: vf.contract?.file ?? vf.family.contract ?? null,
      implied_by: vf.contract?.implied_by ?? null,
      variants: [...vf.configs.values()].map((c) => c.name),
    })),
    findings,
    totals: countBy(findings.map((f) => f.severity)),
  };
  const out = outputDir(opts);
  const dir = writeAudit(auditDir(out, audit.audit_id), audit, renderStaticAuditMarkdown(audit));
  if (opts.json) io.out(JSON.stringify(audit, null, 2));
  else {
    for (const f of findings)
      io.err(
        oneLine(
          `agentguard: ${f.severity} ${f.code}${f.family ? ` (${f.family})` : ''}: ${f.file}${f.field ? `: field '${f.field}'` : ''}: ${f.message}`,
        ),
      );
    io.out(
      `static audit of ${registry.file}: ${audit.families.length} families, ${audit.totals.error} errors, ${audit.totals.warning} warnings; report ${path.join(dir, 'audit.md')}`,
    );
  }
  if (findings.some((f) => f.code === 'invalid')) return 2;
  return audit.totals.error + audit.totals.warning > 0 ? 1 : 0;
}

export async function auditRun(io: CliIO, opts: AuditOptions): Promise<number> {
  const { registry, validation } = loadSelection(opts);
  // Nothing runs against a registry or contract that is wrong: one line per problem, exit 2.
  if (validation.issues.length > 0) throw new ConfigError(validation.issues);
  const trials = countFlag('--trials', opts.trials, 1);
  const options = batchOptions(opts);
  const out = outputDir(opts);
  for (const vf of validation.families)
    for (const cfg of vf.configs.values()) checkRepoOutsideOutput(cfg, out);
  const ctx = await beginRunSession(runContext(io, { ...opts, quiet: true }), io.err);
  const quiet = quietProgress(opts.json === true);
  const created = ctx.now();
  const result = await runAudit(
    ctx,
    validation.families,
    { trials, strict: opts.strict === true, options, registryFile: registry.file },
    quiet
      ? undefined
      : ({ row, done, total }) =>
          io.err(
            oneLine(
              `[${done}/${total}] ${row.agent} · ${row.task} · trial ${row.trial}: ${row.result}${row.reason ? ` (${row.reason})` : ''}`,
            ),
          ),
  );
  const mismatches = result.outcomes.flatMap((o) => [
    ...o.trials.flatMap((t) => t.mismatches),
    ...o.across_trials,
  ]);
  const audit: RunAudit = {
    schema_version: 1,
    audit_id: newRunId(created),
    kind: 'run',
    registry: registry.file,
    created_at: created.toISOString(),
    finished_at: ctx.now().toISOString(),
    options: { trials, strict: opts.strict === true, workers: options.workers },
    batch: result.batch,
    findings: result.findings,
    outcomes: result.outcomes,
    totals: {
      match: result.outcomes.filter((o) => o.status === 'match').length,
      violated: result.outcomes.filter((o) => o.status === 'violated').length,
      skipped: result.outcomes.filter((o) => o.status === 'skipped').length,
      errors: mismatches.filter((m) => m.severity === 'error').length + result.findings.length,
      warnings: mismatches.filter((m) => m.severity === 'warning').length,
    },
  };
  const dir = writeAudit(auditDir(out, audit.audit_id), audit, renderRunAuditMarkdown(audit));
  if (opts.json) io.out(JSON.stringify(audit, null, 2));
  else {
    for (const o of result.outcomes) {
      const head = `${o.family} · ${o.agent} · ${o.variant}`;
      if (o.status === 'skipped') io.err(oneLine(`  ${head}: ${o.skipped}`));
      for (const t of o.trials)
        for (const m of t.mismatches)
          io.err(oneLine(`  ${head} · trial ${t.observed.trial}: ${m.severity} ${m.code}: ${m.message}`));
      for (const m of o.across_trials) io.err(oneLine(`  ${head}: ${m.severity} ${m.code}: ${m.message}`));
    }
    for (const f of result.findings) io.err(oneLine(`  ${f.family}: ${f.severity} ${f.code}: ${f.message}`));
    const t = audit.totals;
    io.out(
      `audit run: ${audit.outcomes.length} references × variants, ${trials} trial(s) each on ${os.availableParallelism()} cores: ` +
        `${t.match} match, ${t.violated} violated, ${t.skipped} skipped, ${t.warnings} warnings` +
        `${result.batch ? `; runs in batch ${result.batch.dir}` : ''}; report ${path.join(dir, 'audit.md')}`,
    );
  }
  const stop = stopReasonOf(ctx.signal);
  if (stop?.kind === 'signal') return signalExitCode(stop.signal);
  return audit.totals.violated > 0 || result.findings.length > 0 ? 1 : 0;
}
