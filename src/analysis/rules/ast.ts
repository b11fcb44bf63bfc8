/** Comparison operators of the condition language. `exists` takes no value. */
export const OPERATORS = [
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'glob',
  'startswith',
  'endswith',
  'contains',
  'icontains',
  'hostmatch',
  'globnames',
  'exists',
] as const;
export type Op = (typeof OPERATORS)[number];

/**
 * A resolved condition: macros inlined, list names replaced by their items. Values are templates
 * that may still hold `$PLACEHOLDER`s; `createMatcher` binds them to a run.
 */
export type Expr =
  | { type: 'and'; items: Expr[] }
  | { type: 'or'; items: Expr[] }
  | { type: 'not'; item: Expr }
  | { type: 'test'; field: string; op: Op; values: string[] }
  | { type: 'const'; value: boolean };

/** Readable form of a resolved condition (for messages and tests). */
export function exprText(e: Expr): string {
  switch (e.type) {
    case 'and':
    case 'or':
      return `(${e.items.map(exprText).join(` ${e.type} `)})`;
    case 'not':
      return `not ${exprText(e.item)}`;
    case 'const':
      return String(e.value);
    case 'test':
      if (e.op === 'exists') return `${e.field} exists`;
      return `${e.field} ${e.op} (${e.values.join(', ')})`;
  }
}
