import { runAblation } from '../../diagnostics/ablation/run-ablation.js';
import { defaultRuleIds, loadCatalog } from '../../diagnostics/mutations/catalog.js';
import { wholeNumber } from '../flags.js';
import type { CliIO } from '../io.js';
import { type DiagnosticsOptions, diagnosticSession, onlyIds } from './diagnostic-session.js';

/**
 * `agentguard diagnostics ablation [--only ID…] [--trials N] [--json]`: 0 when the controls were
 * valid and the trials agreed, 1 when headline claims had to be suppressed or trials disagreed,
 * 2 for bad input.
 */
export async function ablationCommand(io: CliIO, opts: DiagnosticsOptions): Promise<number> {
  const only = onlyIds(opts.only);
  const trials = wholeNumber('--trials', opts.trials, { fallback: 1, min: 1, max: 20, example: 3 });
  loadCatalog(defaultRuleIds(), only);
  const { session, tracer } = await diagnosticSession(io, opts);
  const result = await runAblation(session, {
    only,
    trials,
    ...(tracer ? { tracer } : {}),
  });
  const { report } = result;
  const a = report.analysis;
  if (opts.json) io.out(JSON.stringify(report, null, 2));
  else {
    const lines = [
      `ablation: ${a.entries} entries (${a.mutations} mutations) × ${a.trials} trial(s), ${a.contributions.length} checks left out one at a time`,
    ];
    if (report.headline) {
      for (const h of report.headline)
        lines.push(
          `  ${h.check}: ${h.detections} detection(s), ${h.unique_detections} unique (verdict), ${h.unique_signals} unique (any signal)`,
        );
    } else {
      lines.push('headline contributions suppressed: the controls did not match the catalog:');
      for (const r of report.suppressed_because) lines.push(`  ${r}`);
    }
    if (a.disagreements.length > 0)
      lines.push(`${a.disagreements.length} trial disagreement(s); see the report`);
    lines.push(`report: ${result.mdFile}`);
    io.out(lines.join('\n'));
  }
  return report.headline === null || a.disagreements.length > 0 ? 1 : 0;
}
