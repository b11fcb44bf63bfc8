import { z } from 'zod';
import { parseYamlText, type YamlFileKind } from '../../config/load-yaml-file.js';
import { ConfigError } from '../../errors.js';
import { TRACER_KINDS } from '../../evidence/kinds.js';

/**
 * The behaviour catalogue (rules/catalogue/behaviours.yaml): for each suspicious Linux behaviour of
 * the public reference (Falco's default rules, the event-generator's actions), the default rule
 * that covers it, or why it is a known gap or does not apply. Pure: the caller reads the files.
 */
const Tracer = z.enum(TRACER_KINDS);
const Covered = z.strictObject({
  id: z.string().min(1),
  behaviour: z.string().min(1),
  rule: z.string().min(1),
  tracers: z.array(Tracer).min(1),
  tests: z.array(z.string().min(1)),
});
const Gap = z.strictObject({ id: z.string().min(1), behaviour: z.string().min(1), gap: z.string().min(1) });
const NotApplicable = z.strictObject({
  id: z.string().min(1),
  behaviour: z.string().min(1),
  not_applicable: z.string().min(1),
});
const CatalogueSchema = z.strictObject({
  behaviours: z.array(z.union([Covered, Gap, NotApplicable])).min(1),
});

const CATALOGUE_FILE: YamlFileKind = {
  what: 'behaviour catalogue',
  docs: 'rules/README.md',
  notMapping: {
    message: 'must be a mapping with a `behaviours` list',
    fix: 'give each behaviour id, behaviour and either rule+tracers+tests, gap or not_applicable',
  },
};

export type CatalogueEntry =
  | { status: 'covered'; id: string; behaviour: string; rule: string; tracers: string[]; tests: string[] }
  | { status: 'gap' | 'not-applicable'; id: string; behaviour: string; reason: string };

/**
 * Parses the catalogue and checks every rule id and rule case it names exists, so it cannot rot.
 * `cases` is null where the tests are not shipped (an installed package): then tests go unchecked.
 */
export function parseCatalogue(
  text: string,
  file: string,
  known: { rules: ReadonlySet<string>; cases: ReadonlySet<string> | null },
): CatalogueEntry[] {
  const parsed = parseYamlText(file, text, CatalogueSchema, CATALOGUE_FILE);
  if (!parsed.ok) throw new ConfigError(parsed.issues);
  const seen = new Set<string>();
  return parsed.value.behaviours.map((b): CatalogueEntry => {
    if (seen.has(b.id))
      throw new ConfigError(`${file}: behaviour ${b.id} is listed twice. Fix: keep one entry.`);
    seen.add(b.id);
    if ('gap' in b) return { status: 'gap', id: b.id, behaviour: b.behaviour, reason: b.gap };
    if ('not_applicable' in b)
      return { status: 'not-applicable', id: b.id, behaviour: b.behaviour, reason: b.not_applicable };
    if (!known.rules.has(b.rule))
      throw new ConfigError(
        `${file}: behaviour ${b.id}: rule ${b.rule} is not a default rule. Fix: name one in rules/*.yaml.`,
      );
    for (const t of b.tests)
      if (known.cases && !known.cases.has(t))
        throw new ConfigError(
          `${file}: behaviour ${b.id}: test ${t} is not in test/rule-cases. Fix: add the case or drop the name.`,
        );
    return { status: 'covered', ...b };
  });
}

/** One row a behaviour: what the terminal table and the docs page both show. */
export function coverageRows(entries: readonly CatalogueEntry[]): string[][] {
  return entries.map((e) =>
    e.status === 'covered'
      ? [
          e.behaviour,
          e.rule,
          e.tracers.join(', '),
          e.tests.length > 0 ? e.tests.join(', ') : 'no rule case yet',
        ]
      : [e.behaviour, e.status, '-', e.reason],
  );
}

export const COVERAGE_HEADERS = ['behaviour', 'rule', 'tracers', 'test or reason'] as const;

/** docs/rules-coverage.md, generated so the page and the command cannot disagree. */
export function renderCoverageMarkdown(entries: readonly CatalogueEntry[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const table = (rows: string[][], headers: readonly string[]) =>
    [
      `| ${headers.join(' | ')} |`,
      `| ${headers.map(() => '---').join(' | ')} |`,
      ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
    ].join('\n');
  const covered = entries.filter((e) => e.status === 'covered');
  const rest = entries.filter((e) => e.status !== 'covered');
  return [
    '# Rule coverage of the public catalogue',
    '',
    'Generated from `rules/catalogue/behaviours.yaml` by `agentguard rules coverage --markdown`; edit the',
    "catalogue, not this page. The reference is Falco's default rules (falcosecurity/rules) and the",
    "event-generator's Linux actions (falcosecurity/event-generator `events/syscall/`). Tests are",
    'rule cases in `test/rule-cases/`, run for real in bwrap under strace.',
    '',
    `## Covered (${covered.length})`,
    '',
    table(coverageRows(covered), COVERAGE_HEADERS),
    '',
    `## Not covered (${rest.length})`,
    '',
    table(coverageRows(rest), ['behaviour', 'status', 'tracers', 'reason']),
    '',
  ].join('\n');
}
