import { defaultRuleIds, loadCatalog } from '../../diagnostics/mutations/catalog.js';
import { isSafe } from '../../diagnostics/mutations/catalog-schema.js';
import { runMutations } from '../../diagnostics/mutations/run-mutations.js';
import { renderTable } from '../../reports/table.js';
import type { CliIO } from '../io.js';
import { type DiagnosticsOptions, diagnosticSession, onlyIds } from './diagnostic-session.js';

/**
 * `agentguard diagnostics mutations [--only ID…] [--json] [--list]`: 0 when every entry was detected
 * or stayed quiet, 1 on any miss, false alarm or entry that could not be carried out, 2 for bad input.
 */
export async function mutationsCommand(io: CliIO, opts: DiagnosticsOptions): Promise<number> {
  const only = onlyIds(opts.only);
  // The catalog and --only are checked before anything starts or is written.
  const entries = loadCatalog(defaultRuleIds(), only);
  if (opts.list) {
    if (opts.json) io.out(JSON.stringify(entries, null, 2));
    else
      io.out(
        renderTable(
          ['entry', 'category', 'fixture', 'must fail'],
          entries.map((e) => [
            e.id,
            e.category,
            e.fixture,
            isSafe(e) ? '(safe: nothing)' : [...e.must_fail.checks, ...e.must_fail.rules].join(', '),
          ]),
        ),
      );
    return 0;
  }
  const { session, tracer } = await diagnosticSession(io, opts);
  const result = await runMutations(session, {
    only,
    ...(tracer ? { tracer } : {}),
  });
  const { report } = result;
  const s = report.summary;
  if (opts.json) io.out(JSON.stringify(report, null, 2));
  else {
    io.out(
      [
        `mutations: ${s.entries} entries: ${s.detected} detected, ${s.quiet} safe and quiet, ${s.missed} missed, ${s.false_alarms} false alarm(s), ${s.errored} errored`,
        `checks detected: ${s.checks.length - s.uncovered.checks.length}/${s.checks.length}; default rules detected: ${s.rules.length - s.uncovered.rules.length}/${s.rules.length}`,
        ...report.findings.map((f) => `finding: ${f}`),
        `report: ${result.mdFile}`,
      ].join('\n'),
    );
  }
  return report.interrupted || s.missed + s.false_alarms + s.errored > 0 ? 1 : 0;
}
