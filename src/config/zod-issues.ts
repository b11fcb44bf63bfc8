import type { z } from 'zod';
import type { ConfigIssue } from '../errors.js';
import { closestKey } from './closest-key.js';
import { knownKeysAt } from './schema-keys.js';

/** What turning zod's issues into sentences needs: the file, its schema and value, and its docs. */
export type IssueContext = {
  file: string;
  schema: z.ZodType;
  /** The parsed document, to tell a missing field from a wrong one and to choose union branches. */
  raw: unknown;
  /** The document that lists every key (named in fixes), e.g. docs/config.md. */
  docs: string;
};

type Path = readonly PropertyKey[];

/** `a.b[0].c` for a zod path. */
export function fieldName(path: Path): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/**
 * zod's issues as ConfigIssues: unknown keys first (with the nearest known key of the schema at that
 * depth). A typo is one problem, not several: beside a misspelt key, the issues of the key it was
 * meant to be (absent, so "missing") and the checks of the mapping holding it (which saw that key
 * absent) are dropped.
 */
export function zodIssues(ctx: IssueContext, issues: readonly z.core.$ZodIssue[]): ConfigIssue[] {
  const out = issues.flatMap((i) => translate(ctx, i, []));
  const typos = out.filter((i) => isUnknownKey(i) && i.suggestion !== undefined);
  const holders = new Set(typos.map((i) => parentOf(i.field)));
  const meant = new Set(typos.map((i) => siblingField(i.field, i.suggestion as string)));
  const kept = out.filter((i) => isUnknownKey(i) || !(holders.has(i.field) || meant.has(i.field)));
  const unknownFirst = (i: ConfigIssue) => (isUnknownKey(i) ? 0 : 1);
  return kept.sort((a, b) => unknownFirst(a) - unknownFirst(b));
}

function isUnknownKey(issue: ConfigIssue): boolean {
  return / is not a known key$/.test(issue.message);
}

function parentOf(field: string): string {
  return field.replace(/(\.[^.[\]]+|\[\d+\]|^[^.[\]]+)$/, '');
}
function lastKey(field: string): string {
  return field.match(/([^.[\]]+)$/)?.[1] ?? field;
}

function siblingField(field: string, key: string): string {
  const parent = parentOf(field);
  return parent ? `${parent}.${key}` : key;
}

function valueAt(raw: unknown, path: Path): unknown {
  let v = raw;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function translate(ctx: IssueContext, issue: z.core.$ZodIssue, prefix: Path): ConfigIssue[] {
  const path = [...prefix, ...issue.path];
  const field = fieldName(path);
  const at = (message: string, fix: string, suggestion?: string): ConfigIssue =>
    suggestion === undefined
      ? { file: ctx.file, field, message, fix }
      : { file: ctx.file, field, message, fix, suggestion };
  switch (issue.code) {
    case 'unrecognized_keys': {
      const present = Object.keys((valueAt(ctx.raw, path) as object | undefined) ?? {});
      const known = knownKeysAt(ctx.schema, path, ctx.raw);
      const free = known.filter((k) => !present.includes(k));
      return issue.keys.map((key) => {
        const guess = closestKey(key, free);
        const fix = guess
          ? `did you mean '${guess}'? See ${ctx.docs}`
          : known.length > 0 && known.length <= 10
            ? `remove it, or use one of: ${known.join(', ')}`
            : `remove it; ${ctx.docs} lists every key`;
        const issueField = fieldName([...path, key]);
        if (known.includes(key))
          // A key of another branch of a union: {name, agent_command} given agent_profile as well.
          return {
            file: ctx.file,
            field: issueField,
            message: `'${key}' cannot be combined with the other keys given here`,
            fix: `keep the keys of one form (${ctx.docs} lists them)`,
          };
        const base = { file: ctx.file, field: issueField, message: `'${key}' is not a known key`, fix };
        return guess ? { ...base, suggestion: guess } : base;
      });
    }
    case 'invalid_type':
      return [typeIssue(at, field, issue.expected, valueAt(ctx.raw, path))];
    case 'invalid_union':
      return unionIssue(ctx, issue, path, at);
    case 'invalid_value':
      return [valueIssue(ctx, at, field, issue.values, valueAt(ctx.raw, path))];
    case 'too_big':
    case 'too_small': {
      const { message, fix } = boundIssue(field, issue);
      return [at(message, fix)];
    }
    case 'invalid_format': {
      const own = !/^Invalid /.test(issue.message);
      return [at(own ? issue.message : 'does not have the expected form', `correct it (see ${ctx.docs})`)];
    }
    case 'custom': {
      // A schema's own check names its fix (and a likely meant value) in the issue's params.
      const params = issue.params as { fix?: string; suggestion?: string } | undefined;
      return [at(issue.message, params?.fix ?? `see ${ctx.docs}`, params?.suggestion)];
    }
    case 'invalid_key':
    case 'invalid_element': {
      const inner = issue.issues[0];
      const message = inner && !/^Invalid /.test(inner.message) ? inner.message : issue.message.toLowerCase();
      return [at(message, `see ${ctx.docs}`)];
    }
    default:
      return [at(issue.message.toLowerCase(), `see ${ctx.docs}`)];
  }
}

type At = (message: string, fix: string, suggestion?: string) => ConfigIssue;

function typeIssue(at: At, field: string, expected: string, value: unknown): ConfigIssue {
  if (value === undefined) return at('is required but missing', `add '${lastKey(field)}'`);
  if (expected === 'int' && typeof value === 'number')
    return at(`must be a whole number, not ${value}`, 'give a whole number');
  const hint =
    expected === 'string' && (typeof value === 'boolean' || typeof value === 'number')
      ? `quote it: YAML reads bare ${typeof value === 'boolean' ? 'true/false/yes/no' : 'numbers'} as ${typeof value}s`
      : `give ${typeName(expected)}`;
  return at(`must be ${typeName(expected)}, not ${valueName(value)}`, hint);
}

/** What a YAML value is, in words: "a list", "a mapping", "a boolean". */
function valueName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}

function valueIssue(
  ctx: IssueContext,
  at: At,
  field: string,
  values: readonly unknown[],
  value: unknown,
): ConfigIssue {
  if (value === undefined)
    return at(
      'is required but missing',
      `add '${lastKey(field)}': one of ${values.map((v) => String(v)).join(', ')}`,
    );
  const message = `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
  const names = values.filter((v): v is string => typeof v === 'string');
  const guess = typeof value === 'string' ? closestKey(value, names) : null;
  return guess
    ? at(message, `did you mean '${guess}'? See ${ctx.docs}`, guess)
    : at(message, 'use one of those values');
}

/**
 * A value no branch of a union accepts. When some branch takes a value of this type (a mapping with
 * a misspelt key), that branch's own issues are the useful ones; otherwise name the accepted types.
 */
function unionIssue(
  ctx: IssueContext,
  issue: z.core.$ZodIssueInvalidUnion,
  path: Path,
  at: At,
): ConfigIssue[] {
  const value = valueAt(ctx.raw, path);
  const options = (issue as { options?: unknown[] }).options;
  if (issue.errors.length === 0 && options) return [valueIssue(ctx, at, fieldName(path), options, value)];

  const fitting = issue.errors.filter((b) => !rootTypeMismatch(b)).sort((a, b) => a.length - b.length);
  const best = fitting[0];
  const missingOnly = (b: readonly z.core.$ZodIssue[]) =>
    b.length === 1 && b[0]?.path.length === 1 && valueAt(value, b[0].path) === undefined;
  const alternatives = fitting.filter(missingOnly);
  if (alternatives.length > 1) {
    // {name: x} for {name, agent_command} | {name, agent_profile}: either key would do.
    const keys = alternatives.map((b) => `'${fieldName(b[0]?.path ?? [])}'`);
    return [
      at(`needs ${keys.slice(0, -1).join(', ')} or ${keys.at(-1)}`, `add one of them (see ${ctx.docs})`),
    ];
  }
  if (best) {
    const unknown = best.filter((i) => i.code === 'unrecognized_keys');
    return (unknown.length > 0 ? unknown : best).flatMap((i) => translate(ctx, i, path));
  }
  if (value === undefined) return [at('is required but missing', `add '${lastKey(fieldName(path))}'`)];
  const expected = [...new Set(rootTypes(issue.errors))];
  const names = expected.map(typeName);
  // Every string-or-list in these files is a command (test_command, an inline agent_command).
  if (expected.length === 2 && expected.includes('string') && expected.includes('array'))
    return [
      at(
        'must be a string or a list of strings',
        'write one string or a list of strings, e.g. [npm, test] or "npm test"',
      ),
    ];
  const list =
    names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? 'another value');
  return [at(`must be ${list}, not ${valueName(value)}`, `give ${list}`)];
}

type Branch = readonly z.core.$ZodIssue[];

/** A union branch that refused the value's type itself (a nested union whose branches all did too). */
function rootTypeMismatch(branch: Branch): boolean {
  return branch.some(
    (i) =>
      i.path.length === 0 &&
      (i.code === 'invalid_type' ||
        (i.code === 'invalid_union' && i.errors.length > 0 && i.errors.every(rootTypeMismatch))),
  );
}

/** The types the branches of a union (nested ones included) expected. */
function rootTypes(branches: readonly Branch[]): string[] {
  return branches.flatMap((b) =>
    b.flatMap((i) =>
      i.path.length > 0
        ? []
        : i.code === 'invalid_type'
          ? [i.expected]
          : i.code === 'invalid_union'
            ? rootTypes(i.errors)
            : [],
    ),
  );
}

function typeName(expected: string): string {
  const names: Record<string, string> = {
    string: 'a string',
    array: 'a list',
    object: 'a mapping',
    number: 'a number',
    int: 'a whole number',
    boolean: 'true or false',
    null: 'null',
  };
  return names[expected] ?? `a ${expected}`;
}

/** "must be at most 604800 (7 days)", for a number out of its range; "must not be empty" for a list. */
function boundIssue(
  field: string,
  issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall,
): { message: string; fix: string } {
  const big = issue.code === 'too_big';
  const limit = Number(big ? issue.maximum : issue.minimum);
  if (issue.origin === 'array' || issue.origin === 'string' || issue.origin === 'set') {
    if (!big && limit === 1)
      return {
        message: 'must not be empty',
        fix: issue.origin === 'string' ? 'give a value' : `give at least one item in '${field}'`,
      };
    const unit = issue.origin === 'string' ? 'characters' : 'items';
    return {
      message: big ? `must have at most ${limit} ${unit}` : `must have at least ${limit} ${unit}`,
      fix: big ? 'shorten it' : 'add to it',
    };
  }
  if (issue.origin !== 'number' && issue.origin !== 'int') {
    return { message: issue.message.toLowerCase(), fix: 'correct the value' };
  }
  const inclusive = issue.inclusive !== false;
  const days = field.endsWith('_seconds') && big ? ` (${limit / 86400} days)` : '';
  const message = big
    ? `must be at most ${limit}${days}`
    : inclusive
      ? `must be at least ${limit}`
      : `must be more than ${limit}`;
  return { message, fix: `give a number in range${days ? '; a time limit of hours is usual' : ''}` };
}
