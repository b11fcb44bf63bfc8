import type { Expr } from './ast.js';

/** What is known about every event a specialised condition will see. */
export type Facts = { kind: string; access?: string | undefined };

const TRUE: Expr = { type: 'const', value: true };
const FALSE: Expr = { type: 'const', value: false };

function known(e: Extract<Expr, { type: 'test' }>, facts: Facts): boolean | undefined {
  const value =
    e.field === 'kind'
      ? facts.kind
      : e.field === 'access' && facts.kind === 'open'
        ? facts.access
        : undefined;
  if (e.field !== 'kind' && !(e.field === 'access' && facts.kind === 'open')) return undefined;
  if (e.values.some((v) => v.includes('$'))) return undefined;
  switch (e.op) {
    case 'exists':
      return value !== undefined;
    case '=':
    case 'in':
      return value !== undefined && e.values.includes(value);
    case '!=':
      return value !== undefined && !e.values.includes(value);
    default:
      return undefined;
  }
}

/**
 * Partially evaluates a condition for one event kind (and, for opens, one access mode): tests of
 * `kind` and `access` become constants and fold away. The matcher compiles one closure per kind,
 * so a rule about writes costs nothing on the reads that make up most of a run.
 */
export function specialize(e: Expr, facts: Facts): Expr {
  switch (e.type) {
    case 'const':
      return e;
    case 'test': {
      const k = known(e, facts);
      return k === undefined ? e : k ? TRUE : FALSE;
    }
    case 'not': {
      const inner = specialize(e.item, facts);
      return inner.type === 'const' ? (inner.value ? FALSE : TRUE) : { type: 'not', item: inner };
    }
    case 'and':
    case 'or': {
      const absorbing = e.type === 'or';
      const items: Expr[] = [];
      for (const item of e.items) {
        const s = specialize(item, facts);
        if (s.type === 'const') {
          if (s.value === absorbing) return s;
          continue;
        }
        items.push(s);
      }
      if (items.length === 0) return absorbing ? FALSE : TRUE;
      return items.length === 1 ? (items[0] as Expr) : { type: e.type, items };
    }
  }
}
