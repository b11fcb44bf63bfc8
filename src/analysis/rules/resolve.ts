import { closestKey } from '../../config/closest-key.js';
import type { Expr, Op } from './ast.js';
import { ConditionSyntaxError, parseCondition, type RawExpr, type RawValue } from './parser.js';
import { FIELDS, type FieldSpec, fieldSpec, PLACEHOLDER_RE, PLACEHOLDERS } from './vocabulary.js';

/** A problem in one condition: what is wrong and how to fix it (the caller adds file and rule). */
export class RuleProblem extends Error {
  /** The innermost macro whose text holds the problem, when it is in a macro. */
  macro: string | undefined;
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

export type Definitions = {
  lists: ReadonlyMap<string, readonly string[]>;
  macros: ReadonlyMap<string, string>;
};

const LIST_LIKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/;
const STRING_OPS = new Set<Op>([
  '=',
  '!=',
  'in',
  'glob',
  'startswith',
  'endswith',
  'contains',
  'icontains',
  'hostmatch',
  'globnames',
]);
const NUMBER_OPS = new Set<Op>(['=', '!=', '<', '<=', '>', '>=', 'in']);
const ENUM_OPS = new Set<Op>(['=', '!=', 'in']);
const SCALAR_OPS = new Set<Op>(['=', '!=', '<', '<=', '>', '>=']);

/** Resolves conditions against one set of definitions; macro results are cached. */
export class Resolver {
  readonly #defs: Definitions;
  readonly #macroCache = new Map<string, Expr>();
  readonly #resolving: string[] = [];

  constructor(defs: Definitions) {
    this.#defs = defs;
  }

  /** Parses and resolves a condition; throws RuleProblem. */
  condition(text: string): Expr {
    let raw: RawExpr;
    try {
      raw = parseCondition(text);
    } catch (err) {
      if (err instanceof ConditionSyntaxError) {
        throw new RuleProblem(
          `the condition has a syntax error: ${err.message}`,
          'correct the condition syntax',
        );
      }
      throw err;
    }
    return this.#resolve(raw);
  }

  /** Resolves a macro by name (used to check every macro even when no rule uses it). */
  macro(name: string): Expr {
    const cached = this.#macroCache.get(name);
    if (cached) return cached;
    const text = this.#defs.macros.get(name);
    if (text === undefined) throw new RuleProblem(`unknown macro '${name}'`, 'define the macro');
    if (this.#resolving.includes(name)) {
      throw new RuleProblem(
        `macro '${name}' refers to itself (${[...this.#resolving, name].join(' -> ')})`,
        'break the cycle',
      );
    }
    this.#resolving.push(name);
    try {
      const expr = this.condition(text);
      this.#macroCache.set(name, expr);
      return expr;
    } catch (err) {
      if (err instanceof RuleProblem) err.macro ??= name;
      throw err;
    } finally {
      this.#resolving.pop();
    }
  }

  #resolve(raw: RawExpr): Expr {
    switch (raw.type) {
      case 'and':
      case 'or':
        return { type: raw.type, items: raw.items.map((i) => this.#resolve(i)) };
      case 'not':
        return { type: 'not', item: this.#resolve(raw.item) };
      case 'ref':
        return this.#ref(raw.name);
      case 'test':
        return this.#test(raw.field, raw.op, raw.values, raw.list);
    }
  }

  #ref(name: string): Expr {
    if (this.#defs.macros.has(name)) return this.macro(name);
    const spec = fieldSpec(name);
    if (spec?.type.t === 'bool') return { type: 'test', field: name, op: '=', values: ['true'] };
    if (spec) {
      throw new RuleProblem(
        `field '${name}' is used without an operator`,
        `compare it, e.g. '${name} = value'`,
      );
    }
    const near = closestKey(name, [...this.#defs.macros.keys(), ...Object.keys(FIELDS)]);
    throw new RuleProblem(
      `'${name}' is neither a macro nor a field`,
      near ? `write '${near}' or define macro '${name}'` : `define macro '${name}' or correct the name`,
    );
  }

  #test(field: string, op: Op, rawValues: RawValue[], list: boolean): Expr {
    const spec = fieldSpec(field);
    if (!spec) {
      const near = closestKey(field, Object.keys(FIELDS));
      const isList = this.#defs.lists.has(field);
      throw new RuleProblem(
        `the condition uses the unknown field '${field}'${isList ? ' (that is a list name)' : ''}`,
        near
          ? `write '${near}' instead`
          : `use a known field such as ${Object.keys(FIELDS).slice(0, 8).join(', ')}`,
      );
    }
    checkOperator(field, spec, op);
    if (op === 'exists') return { type: 'test', field, op, values: [] };
    const values = rawValues.flatMap((v) => this.#value(field, spec, v));
    const expandsList = values.length !== rawValues.length || rawValues.some((v) => this.#isListRef(v));
    if (SCALAR_OPS.has(op) && (list || expandsList || values.length !== 1)) {
      throw new RuleProblem(
        `'${field} ${op}' compares with one value but was given a list`,
        op === '=' ? `use '${field} in (...)'` : 'compare with a single value',
      );
    }
    for (const v of values) checkValue(field, spec, op, v, SCALAR_OPS.has(op));
    return { type: 'test', field, op, values };
  }

  #isListRef(v: RawValue): boolean {
    return !v.quoted && this.#defs.lists.has(v.text);
  }

  #value(field: string, spec: FieldSpec, v: RawValue, seen: string[] = []): string[] {
    if (v.quoted) return [v.text];
    const items = this.#defs.lists.get(v.text);
    if (items) {
      if (seen.includes(v.text)) throw new RuleProblem(`list '${v.text}' contains itself`, 'break the cycle');
      return items.flatMap((item) =>
        this.#value(field, spec, { text: item, quoted: false }, [...seen, v.text]),
      );
    }
    const enumOk = spec.type.t === 'enum' && spec.type.values.includes(v.text);
    if (seen.length === 0 && LIST_LIKE.test(v.text) && !enumOk) {
      const near = closestKey(v.text, [...this.#defs.lists.keys()]);
      throw new RuleProblem(
        `'${v.text}' looks like a list name but no list of that name is defined`,
        near
          ? `write '${near}', or quote the value if it is literal`
          : 'define the list, or quote the value if it is literal',
      );
    }
    return [v.text];
  }
}

function checkOperator(field: string, spec: FieldSpec, op: Op): void {
  if (op === 'exists') return;
  if (spec.set && op === '!=') {
    throw new RuleProblem(
      `'${field}' is a set of values, so '!=' is ambiguous`,
      `write 'not ${field} = ...' instead`,
    );
  }
  if (op === 'hostmatch' && !['dest', 'host'].includes(field)) {
    throw new RuleProblem(
      `'hostmatch' applies to 'dest' or 'host', not '${field}'`,
      "use 'dest hostmatch (...)'",
    );
  }
  const t = spec.type.t;
  const allowed =
    t === 'string'
      ? STRING_OPS
      : t === 'number'
        ? NUMBER_OPS
        : t === 'enum'
          ? ENUM_OPS
          : new Set<Op>(['=', '!=']);
  if (!allowed.has(op)) {
    throw new RuleProblem(
      `'${field}' is a ${t} field and does not support '${op}'`,
      `use one of ${[...allowed].join(', ')}`,
    );
  }
}

function checkValue(field: string, spec: FieldSpec, op: Op, value: string, scalar: boolean): void {
  for (const m of value.matchAll(PLACEHOLDER_RE)) {
    const name = m[1] as string;
    const kind = PLACEHOLDERS[name];
    if (!kind) {
      const near = closestKey(name, Object.keys(PLACEHOLDERS));
      throw new RuleProblem(
        `the value '${value}' uses the unknown placeholder $${name}`,
        near
          ? `write $${near}`
          : `use one of ${Object.keys(PLACEHOLDERS)
              .map((p) => `$${p}`)
              .join(', ')}`,
      );
    }
    if (kind === 'list' && scalar) {
      throw new RuleProblem(
        `$${name} is a list but '${field} ${op}' takes one value`,
        `write '${field} in ($${name})'`,
      );
    }
  }
  const t = spec.type;
  if (t.t === 'number' && !/^-?\d+(\.\d+)?$/.test(value)) {
    throw new RuleProblem(
      `'${field}' is a number but is compared with '${value}'`,
      'compare it with a number',
    );
  }
  if (t.t === 'bool' && value !== 'true' && value !== 'false') {
    throw new RuleProblem(
      `'${field}' is true or false but is compared with '${value}'`,
      `write '${field}' or 'not ${field}'`,
    );
  }
  if (t.t === 'enum' && !t.values.includes(value)) {
    const near = closestKey(value, t.values);
    throw new RuleProblem(
      `'${value}' is not a possible value of '${field}'`,
      near
        ? `write '${near}'`
        : `use one of ${t.values.slice(0, 12).join(', ')}${t.values.length > 12 ? ', ...' : ''}`,
    );
  }
}
