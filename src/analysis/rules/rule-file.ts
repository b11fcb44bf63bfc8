import { z } from 'zod';
import { parseYamlText, validateYamlValue, type YamlFileKind } from '../../config/load-yaml-file.js';
import { SeveritySchema } from '../../config/schema.js';
import { ConfigError, type ConfigIssue } from '../../errors.js';
import { RULE_CLASSES } from './types.js';

const nonEmpty = z.string().trim().min(1);

const ExceptionSchema = z.union([nonEmpty, z.strictObject({ name: nonEmpty, condition: nonEmpty })]);

export const RuleSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'must be lower-case letters, digits, dots and dashes'),
  description: nonEmpty,
  class: z.enum(RULE_CLASSES),
  severity: SeveritySchema,
  condition: nonEmpty,
  exceptions: z.array(ExceptionSchema).default([]),
  output: nonEmpty.optional(),
  enabled: z.boolean().default(true),
  tags: z.array(nonEmpty).default([]),
  /** Fire only when `count` matching events fall within `within_seconds` (bulk deletion, floods). */
  threshold: z
    .strictObject({ count: z.number().int().min(2), within_seconds: z.number().positive() })
    .optional(),
});

const ListSchema = z.union([
  z.array(z.string().min(1)),
  z.strictObject({ append: z.array(z.string().min(1)) }),
]);

/** A rule file: named lists, named macros (conditions) and rules. Every key is optional. */
export const RuleFileSchema = z.strictObject({
  lists: z
    .record(z.string().regex(/^[a-z][a-z0-9_]*$/, 'list names are lower_snake_case'), ListSchema)
    .default({}),
  macros: z
    .record(z.string().regex(/^[a-z][a-z0-9_]*$/, 'macro names are lower_snake_case'), nonEmpty)
    .default({}),
  rules: z.array(z.unknown()).default([]),
});

export type RuleData = z.output<typeof RuleSchema>;
export type RuleFileData = {
  file: string;
  lists: Record<string, string[] | { append: string[] }>;
  macros: Record<string, string>;
  rules: RuleData[];
};

/** A problem in a rule file: the file, where in it in words (`rule 'x'`, `macro 'm'`), what is wrong, the fix. */
export function ruleError(file: string, where: string, problem: string, fix: string): ConfigError {
  return new ConfigError([{ file, field: '', ...(where ? { where } : {}), message: problem, fix }]);
}

/** How a rule file is named in its issues, and where its keys are documented. */
const RULE_FILE: YamlFileKind = {
  what: 'rule',
  docs: 'rules/README.md',
  notMapping: { message: 'is not a mapping', fix: 'write top-level keys lists, macros and rules' },
  empty: {},
};
const RULE_ITEM: YamlFileKind = {
  ...RULE_FILE,
  notMapping: {
    message: 'is not a mapping',
    fix: 'write the rule as id, description, class, severity and condition',
  },
};

/** A rule's issue names the rule (by id, else by position) before the field. */
function inRule(issue: ConfigIssue, rule: string): ConfigIssue {
  return issue.line ? issue : { ...issue, where: rule };
}

/** Parses and structurally validates one rule file's text. Pure; throws ConfigError. */
export function parseRuleFile(file: string, text: string): RuleFileData {
  const top = parseYamlText(file, text, RuleFileSchema, RULE_FILE);
  if (!top.ok) throw new ConfigError(top.issues);
  const issues: ConfigIssue[] = [];
  const rules: RuleData[] = [];
  for (const [index, item] of top.value.rules.entries()) {
    const parsed = validateYamlValue(file, item, RuleSchema, RULE_ITEM);
    if (parsed.ok) {
      rules.push(parsed.value);
      continue;
    }
    const id =
      typeof item === 'object' && item !== null && typeof (item as { id?: unknown }).id === 'string'
        ? (item as { id: string }).id
        : undefined;
    issues.push(...parsed.issues.map((issue) => inRule(issue, id ? `rule '${id}'` : `rule #${index + 1}`)));
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return { file, lists: top.value.lists, macros: top.value.macros, rules };
}
