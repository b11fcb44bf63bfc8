import type { Expr } from './ast.js';
import { fieldSpec, KINDS, type Kind, SYSCALL_KIND } from './vocabulary.js';

/**
 * Static analysis of a resolved condition: the event kinds it can match (the engine's index) and
 * whether it can match at all. Works on the disjunctive normal form; a conjunction is empty when its
 * kind, enum/string equality, numeric or literal constraints contradict. Placeholder values are
 * unknown at load time and never count as a contradiction. Sound but not complete: a condition
 * reported satisfiable may still never match, never the reverse.
 */
export type Analysis = { kinds: Kind[]; satisfiable: boolean; reason?: string };

type TestExpr = Extract<Expr, { type: 'test' }>;
type Literal = { test: TestExpr; neg: boolean } | { const: boolean };
const MAX_CONJUNCTIONS = 2048;

export function analyse(expr: Expr): Analysis {
  const dnf = toDnf(toNnf(expr, false));
  if (dnf === null) return { kinds: overKinds(expr), satisfiable: true };
  const kinds = new Set<Kind>();
  let reason: string | undefined;
  for (const conj of dnf) {
    const result = conjunctionKinds(conj);
    if (typeof result === 'string') reason ??= result;
    else for (const k of result) kinds.add(k);
  }
  const list = KINDS.filter((k) => kinds.has(k));
  return list.length > 0
    ? { kinds: list, satisfiable: true }
    : { kinds: [], satisfiable: false, reason: reason ?? 'it is always false' };
}

type Nnf = { type: 'and' | 'or'; items: Nnf[] } | { type: 'lit'; lit: Literal };

function toNnf(e: Expr, neg: boolean): Nnf {
  switch (e.type) {
    case 'not':
      return toNnf(e.item, !neg);
    case 'and':
    case 'or': {
      const type = (e.type === 'and') !== neg ? 'and' : 'or';
      return { type, items: e.items.map((i) => toNnf(i, neg)) };
    }
    case 'const':
      return { type: 'lit', lit: { const: e.value !== neg } };
    case 'test':
      return { type: 'lit', lit: { test: e, neg } };
  }
}

function toDnf(n: Nnf): Literal[][] | null {
  if (n.type === 'lit') return [[n.lit]];
  const parts: Literal[][][] = [];
  for (const item of n.items) {
    const d = toDnf(item);
    if (d === null) return null;
    parts.push(d);
  }
  if (n.type === 'or') {
    const out = parts.flat();
    return out.length > MAX_CONJUNCTIONS ? null : out;
  }
  let acc: Literal[][] = [[]];
  for (const part of parts) {
    if (acc.length * part.length > MAX_CONJUNCTIONS) return null;
    acc = acc.flatMap((a) => part.map((b) => [...a, ...b]));
  }
  return acc;
}

const hasPlaceholder = (v: string) => v.includes('$');
const keyOf = (t: TestExpr) => `${t.field}\u0000${t.op}\u0000${t.values.join('\u0001')}`;

/** The kinds a conjunction can match, or a reason it cannot match anything. */
function conjunctionKinds(conj: Literal[]): Set<Kind> | string {
  let kinds = new Set<Kind>(KINDS);
  const allowed = new Map<string, Set<string>>();
  const forbidden = new Map<string, Set<string>>();
  const intervals = new Map<string, { lo: number; hi: number; present: boolean }>();
  const seen = new Map<string, boolean>();
  const restrict = (ks: Iterable<Kind>) => {
    const keep = new Set(ks);
    kinds = new Set([...kinds].filter((k) => keep.has(k)));
  };
  const bound = (field: string, lo: number, hi: number, present: boolean) => {
    const cur = intervals.get(field) ?? { lo: -Infinity, hi: Infinity, present: false };
    intervals.set(field, {
      lo: Math.max(cur.lo, lo),
      hi: Math.min(cur.hi, hi),
      present: cur.present || present,
    });
  };
  for (const lit of conj) {
    if ('const' in lit) {
      if (!lit.const) return 'it contains a constant false';
      continue;
    }
    const { test, neg } = lit;
    const key = keyOf(test);
    if (seen.get(key) === !neg) return `it requires both '${test.field} ${test.op} ...' and its negation`;
    seen.set(key, neg);
    const spec = fieldSpec(test.field);
    if (!spec) continue;
    if (!neg) restrict(spec.kinds);
    let field = test.field;
    const op = test.op;
    const values = test.values;
    if (field === 'failed') {
      // failed is `result < 0`; translate so that failed and result constraints meet.
      const wantsFailed = (values[0] === 'true') !== (op === '!=');
      field = 'result';
      if (wantsFailed !== neg) bound(field, -Infinity, -1, true);
      else bound(field, 0, Infinity, false);
      continue;
    }
    if (values.some(hasPlaceholder) || spec.set) continue;
    if (op === 'in' || op === '=' || op === '!=') {
      const isEq = op !== '!=';
      if (field === 'syscall' && isEq && !neg) restrict(values.map((v) => SYSCALL_KIND[v] ?? 'other'));
      // `not (x != v)` means x is v or x is missing; only `kind` is never missing.
      const allows = isEq ? !neg : neg && field === 'kind';
      const forbids = isEq ? neg : !neg;
      if (allows) {
        const cur = allowed.get(field);
        allowed.set(field, new Set(cur ? values.filter((v) => cur.has(v)) : values));
      } else if (forbids) {
        const cur = forbidden.get(field) ?? new Set<string>();
        for (const v of values) cur.add(v);
        forbidden.set(field, cur);
      }
    }
    if (spec.type.t === 'number' && values.length === 1 && op !== 'in' && op !== '!=') {
      const v = Number(values[0]);
      const [lo, hi] = range(op, v, neg);
      if (lo !== undefined) bound(field, lo, hi as number, !neg);
    }
  }
  for (const [field, set] of allowed) {
    const bad = forbidden.get(field);
    const left = [...set].filter((v) => !bad?.has(v));
    if (left.length === 0) return `'${field}' cannot take any value it is required to`;
    if (field === 'kind') restrict(left as Kind[]);
  }
  const kindBad = forbidden.get('kind');
  if (kindBad && !allowed.has('kind')) restrict(KINDS.filter((k) => !kindBad.has(k)));
  for (const [field, iv] of intervals) {
    if (iv.present && iv.lo > iv.hi) return `'${field}' has no number that meets every comparison`;
  }
  if (kinds.size === 0) return 'no event kind has every field and value it requires';
  return kinds;
}

/** The interval a numeric comparison allows (integers), or undefined when it says nothing simple. */
function range(op: string, v: number, neg: boolean): [number | undefined, number?] {
  const effective = neg
    ? ({ '=': undefined, '<': '>=', '<=': '>', '>': '<=', '>=': '<' } as Record<string, string | undefined>)[
        op
      ]
    : op;
  switch (effective) {
    case '=':
      return [v, v];
    case '<':
      return [-Infinity, v - 1];
    case '<=':
      return [-Infinity, v];
    case '>':
      return [v + 1, Infinity];
    case '>=':
      return [v, Infinity];
    default:
      return [undefined];
  }
}

/** Over-approximation of the kinds a condition can match, for conditions too large for the DNF. */
function overKinds(e: Expr): Kind[] {
  const go = (x: Expr, neg: boolean): Set<Kind> => {
    if (x.type === 'not') return go(x.item, !neg);
    if (x.type === 'const') return new Set(x.value !== neg ? KINDS : []);
    if (x.type === 'and' || x.type === 'or') {
      const sets = x.items.map((i) => go(i, neg));
      const intersect = (x.type === 'and') !== neg;
      return new Set(
        KINDS.filter((k) => (intersect ? sets.every((s) => s.has(k)) : sets.some((s) => s.has(k)))),
      );
    }
    if (neg) return new Set(KINDS);
    const spec = fieldSpec(x.field);
    let ks = new Set<Kind>(spec?.kinds ?? KINDS);
    if (x.field === 'kind' && (x.op === '=' || x.op === 'in')) ks = new Set(x.values as Kind[]);
    if (x.field === 'syscall' && (x.op === '=' || x.op === 'in'))
      ks = new Set(x.values.map((v) => SYSCALL_KIND[v] ?? 'other'));
    return ks;
  };
  const s = go(e, false);
  return KINDS.filter((k) => s.has(k));
}
