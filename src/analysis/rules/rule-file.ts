import { z } from 'zod';
import { SeveritySchema } from '../../config/schema.js';
import { parseYaml } from '../../config/yaml.js';
import { ConfigError } from '../../errors.js';
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

/** A problem in a rule file as one sentence: file, rule, what is wrong, the fix. */
export function ruleError(file: string, where: string, problem: string, fix: string): ConfigError {
  return new ConfigError(`${file}${where ? `, ${where}` : ''}: ${problem}; ${fix}.`);
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function describeIssue(
  issue: z.core.$ZodIssue,
  raw: unknown,
): { field: string; problem: string; fix: string } {
  const field = issue.path.map(String).join('.');
  if (issue.path.length > 0 && valueAt(raw, issue.path) === undefined && issue.code !== 'unrecognized_keys') {
    return { field, problem: `'${field}' is missing`, fix: `add '${field}'` };
  }
  if (issue.code === 'unrecognized_keys') {
    return {
      field,
      problem: `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`,
      fix:
        issue.path.length === 0
          ? 'remove it or correct its name (known: id, description, class, severity, condition, exceptions, output, enabled, tags, threshold)'
          : 'remove it or correct its name',
    };
  }
  if (issue.code === 'invalid_value') {
    return {
      field,
      problem: `'${field}' is ${JSON.stringify(valueAt(raw, issue.path))}, which is not allowed`,
      fix: `use one of ${issue.values.join(', ')}`,
    };
  }
  return {
    field,
    problem: `'${field || 'the file'}' ${issue.message.toLowerCase()}`,
    fix: 'correct the value',
  };
}

/** Parses and structurally validates one rule file's text. Pure; throws ConfigError. */
export function parseRuleFile(file: string, text: string): RuleFileData {
  const yaml = parseYaml(text);
  if (!yaml.ok) {
    const { problem } = yaml;
    const where = problem.line ? `line ${problem.line.line}, column ${problem.line.col}` : '';
    const reason = problem.message.replace(/^is not valid YAML( at line \d+, column \d+)?: /, '');
    throw ruleError(
      file,
      where,
      problem.line ? `is not valid YAML (${reason})` : problem.message,
      problem.line ? 'correct the YAML syntax there' : problem.fix,
    );
  }
  const raw: unknown = yaml.value ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw ruleError(file, '', 'is not a mapping', 'write top-level keys lists, macros and rules');
  }
  const top = RuleFileSchema.safeParse(raw);
  if (!top.success) {
    const d = describeIssue(top.error.issues[0] as z.core.$ZodIssue, raw);
    const fix = d.problem.startsWith('unknown field')
      ? 'the top-level keys are lists, macros and rules'
      : d.fix;
    throw ruleError(file, '', d.problem, fix);
  }
  const rules: RuleData[] = top.data.rules.map((item, index) => {
    const parsed = RuleSchema.safeParse(item);
    if (parsed.success) return parsed.data;
    const id =
      typeof item === 'object' && item !== null && typeof (item as { id?: unknown }).id === 'string'
        ? (item as { id: string }).id
        : undefined;
    const d = describeIssue(parsed.error.issues[0] as z.core.$ZodIssue, item);
    throw ruleError(file, id ? `rule '${id}'` : `rule #${index + 1}`, d.problem, d.fix);
  });
  return { file, lists: top.data.lists, macros: top.data.macros, rules };
}
