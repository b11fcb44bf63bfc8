import { CHECK_TABLE_HEADERS, checkRows, renderChecksMarkdown } from '../../analysis/checks/docs-table.js';
import { CHECK_LIST } from '../../analysis/checks/index.js';
import { renderTable } from '../../reports/table.js';
import type { CliIO } from '../io.js';

/** `agentguard checks`: every check in report order, its default severity, config keys and meaning. */
export async function checksCommand(
  io: CliIO,
  opts: { json?: boolean; markdown?: boolean },
): Promise<number> {
  if (opts.json) {
    const checks = CHECK_LIST.map(({ id, defaultSeverity, policyKeys, doc }) => ({
      id,
      default_severity: defaultSeverity,
      config_keys: policyKeys,
      doc,
    }));
    io.out(JSON.stringify(checks, null, 2));
  } else if (opts.markdown) io.out(renderChecksMarkdown(CHECK_LIST));
  else io.out(renderTable(CHECK_TABLE_HEADERS, checkRows(CHECK_LIST)));
  return 0;
}
