import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  COVERAGE_HEADERS,
  coverageRows,
  parseCatalogue,
  renderCoverageMarkdown,
} from '../../analysis/rules/catalogue.js';
import { loadRuleSet } from '../../analysis/rules/load-rules.js';
import { packageRoot } from '../../package-root.js';
import { renderTable } from '../../reports/table.js';
import type { CliIO } from '../io.js';

export const CATALOGUE_FILE = path.join('rules', 'catalogue', 'behaviours.yaml');

/** Reads the catalogue, the default rules and the rule-case names it is checked against. */
export function loadCatalogue(root = packageRoot()) {
  const rules = new Set(loadRuleSet({}, { rulesDir: path.join(root, 'rules') }).rules.map((r) => r.id));
  let cases: Set<string> | null = null;
  try {
    const names = readdirSync(path.join(root, 'test', 'rule-cases'));
    cases = new Set(names.filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, '')));
  } catch {
    // An installed package ships no tests, so the test names cannot be checked there.
  }
  return parseCatalogue(readFileSync(path.join(root, CATALOGUE_FILE), 'utf8'), CATALOGUE_FILE, {
    rules,
    cases,
  });
}

/** `agentguard rules coverage`: each catalogue behaviour, its rule, the tracers that see it, its test. */
export async function rulesCoverage(
  io: CliIO,
  opts: { json?: boolean; markdown?: boolean },
): Promise<number> {
  const entries = loadCatalogue();
  if (opts.json) io.out(JSON.stringify(entries, null, 2));
  else if (opts.markdown) io.out(renderCoverageMarkdown(entries).trimEnd());
  else {
    io.out(renderTable(COVERAGE_HEADERS, coverageRows(entries)));
    const covered = entries.filter((e) => e.status === 'covered').length;
    io.out(`${covered} of ${entries.length} behaviours covered by a default rule`);
  }
  return 0;
}
