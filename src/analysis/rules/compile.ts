import picomatch from 'picomatch';
import type { Expr } from './ast.js';
import { accessor, type Frame } from './frame.js';
import { compileHostMatch } from './host-match.js';
import { remember } from './parsed-rules.js';
import type { RuleContext } from './types.js';
import { fieldSpec, PLACEHOLDER_RE } from './vocabulary.js';

export type Predicate = (f: Frame) => boolean;

export const DEFAULT_HARNESS_ENDPOINTS = ['127.0.0.1:3128', '127.0.0.1:53'];

const trimSlash = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);

/** The values each placeholder stands for in a run. */
export function placeholderValues(ctx: RuleContext): Record<string, readonly string[]> {
  return {
    HOME: [trimSlash(ctx.home)],
    WORKSPACE: [trimSlash(ctx.workspace)],
    CANARIES: ctx.canaries,
    ALLOWED_HOSTS: ctx.allowedHosts,
    STATE_DIRS: ctx.stateDirs.map(trimSlash),
    VENDOR_HOSTS: ctx.vendorHosts ?? [],
    HARNESS_ENDPOINTS: ctx.harnessEndpoints ?? DEFAULT_HARNESS_ENDPOINTS,
    LOCAL_SERVICES: ctx.localServices ?? [],
  };
}

/** Expands a value template: a list placeholder yields one value per item (none for an empty list). */
export function expandTemplate(template: string, values: Record<string, readonly string[]>): string[] {
  if (!template.includes('$')) return [template];
  let out = [''];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER_RE)) {
    const literal = template.slice(last, m.index);
    const items = values[m[1] as string] ?? [];
    out = out.flatMap((prefix) => items.map((item) => prefix + literal + item));
    last = (m.index ?? 0) + m[0].length;
  }
  const tail = template.slice(last);
  return out.map((s) => (s + tail).replace(/\/{2,}/g, '/'));
}

const MAGIC = /[*?[\]{}()!+@]/;

type GlobTest = (s: string) => boolean;

// Every glob list of every rule tests the same path in turn: remember the last split.
let lastPath = '';
let lastComponent = '';

function firstComponent(s: string): string {
  if (s !== lastPath) {
    const end = s.indexOf('/', 1);
    lastComponent = end < 0 ? s.slice(1) : s.slice(1, end);
    lastPath = s;
  }
  return lastComponent;
}

/** The first path component a pattern's literal part pins down, or '' when the pattern may start anywhere. */
function bucketOf(literal: string): string {
  if (!literal.startsWith('/')) return '';
  const end = literal.indexOf('/', 1);
  return end < 0 ? '' : literal.slice(1, end);
}

/** Path globs as regexes, by pattern: the runs of one process (a batch, the demo) share their rules' globs. */
const globRegexes = new Map<string, RegExp>();

function globRegex(pattern: string): RegExp {
  let re = globRegexes.get(pattern);
  if (re === undefined) {
    re = picomatch.makeRe(pattern, { dot: true, flags: 's' }); // 's': a name may hold a newline
    remember(globRegexes, pattern, re, 4096);
  }
  return re;
}

/**
 * Compiles path globs for speed: exact names and `dir/**` need no regex, the rest pre-filter on
 * their literal prefix, and every pattern sits in a bucket keyed by its first path component, so a
 * path under /usr never looks at patterns for /root or /etc.
 */
export function compileGlobList(patterns: readonly string[]): GlobTest {
  const buckets = new Map<string, GlobTest[]>();
  const add = (key: string, t: GlobTest) => {
    const list = buckets.get(key) ?? [];
    list.push(t);
    buckets.set(key, list);
  };
  for (const p of patterns) {
    const magic = p.search(MAGIC);
    if (magic < 0) add(bucketOf(`${p}/`), (s) => s === p);
    else if (p.endsWith('/**') && magic === p.length - 2) {
      const d = p.slice(0, -3);
      add(
        bucketOf(`${d}/`),
        (s) => s.startsWith(d) && (s.length === d.length || s.charCodeAt(d.length) === 47),
      );
    } else {
      const prefix = p.slice(0, magic);
      const re = globRegex(p);
      add(bucketOf(prefix), (s) => s.startsWith(prefix) && re.test(s));
    }
  }
  const anywhere = buckets.get('') ?? [];
  buckets.delete('');
  return (s) => {
    const bucket = buckets.get(firstComponent(s));
    if (bucket) for (const t of bucket) if (t(s)) return true;
    for (const t of anywhere) if (t(s)) return true;
    return false;
  };
}

/**
 * `globnames`: the event's value read as a pattern of find, a shell or a search tool (`*` crosses
 * folders as find's -path does, case ignored) names one of the list's sample paths (or its base
 * name) and none of its `!` samples: `id_*` and `*ssh*` name `/home/u/.ssh/id_rsa`, while `*`,
 * `*.json` and `config`, which also name `!/home/u/project/package.json` or `!/home/u/project/.git/config`, say
 * nothing. A literal value is a pattern too (`credentials`).
 */
function globNames(values: readonly string[]): (v: string) => boolean {
  const wanted = values.filter((x) => !x.startsWith('!'));
  const ordinary = values.filter((x) => x.startsWith('!')).map((x) => x.slice(1));
  const names = (test: (s: string) => boolean, samples: readonly string[]) =>
    samples.some((s) => test(s) || test(s.slice(s.lastIndexOf('/') + 1)));
  const seen = new Map<string, boolean>();
  return (v) => {
    if (v === '' || v.length > 256) return false;
    let hit = seen.get(v);
    if (hit === undefined) {
      let test: (s: string) => boolean;
      try {
        const re = picomatch.makeRe(v, { bash: true, dot: true, nocase: true });
        test = (s) => re.test(s);
      } catch {
        test = (s) => s.toLowerCase() === v.toLowerCase();
      }
      hit = names(test, wanted) && !names(test, ordinary);
      if (seen.size > 1024) seen.clear();
      seen.set(v, hit);
    }
    return hit;
  };
}

type Test = Extract<Expr, { type: 'test' }>;

function stringTest(op: string, values: string[]): (v: string) => boolean {
  switch (op) {
    case '=':
      return (v) => v === values[0];
    case '!=':
      return (v) => v !== values[0];
    case 'in': {
      const set = new Set(values);
      return (v) => set.has(v);
    }
    case 'glob':
      return compileGlobList(values);
    case 'startswith':
      return (v) => values.some((x) => v.startsWith(x));
    case 'endswith':
      return (v) => values.some((x) => v.endsWith(x));
    case 'contains':
      return (v) => values.some((x) => v.includes(x));
    case 'icontains': {
      const lower = values.map((x) => x.toLowerCase());
      return (v) => {
        const l = v.toLowerCase();
        return lower.some((x) => l.includes(x));
      };
    }
    case 'hostmatch':
      return compileHostMatch(values);
    case 'globnames':
      return globNames(values);
    default:
      throw new Error(`operator '${op}' does not apply to strings`);
  }
}

function numberTest(op: string, values: number[]): (v: number) => boolean {
  const x = values[0] as number;
  switch (op) {
    case '=':
      return (v) => v === x;
    case '!=':
      return (v) => v !== x;
    case '<':
      return (v) => v < x;
    case '<=':
      return (v) => v <= x;
    case '>':
      return (v) => v > x;
    case '>=':
      return (v) => v >= x;
    case 'in': {
      const set = new Set(values);
      return (v) => set.has(v);
    }
    default:
      throw new Error(`operator '${op}' does not apply to numbers`);
  }
}

function compileTest(t: Test, values: Record<string, readonly string[]>): Predicate {
  const get = accessor(t.field);
  const spec = fieldSpec(t.field);
  if (t.op === 'exists') {
    return (f) => {
      const v = get(f);
      return v !== undefined && (!Array.isArray(v) || v.length > 0);
    };
  }
  const expanded = t.values.flatMap((v) => expandTemplate(v, values));
  if (spec?.type.t === 'number') {
    const test = numberTest(t.op, expanded.map(Number));
    return (f) => {
      const v = get(f);
      return typeof v === 'number' && test(v);
    };
  }
  if (spec?.type.t === 'bool') {
    const want = (expanded[0] === 'true') === (t.op === '=');
    return (f) => {
      const v = get(f);
      return typeof v === 'boolean' && v === want;
    };
  }
  if (expanded.length === 0 && t.op !== '!=') return () => false;
  const test = stringTest(t.op, expanded);
  if (spec?.set) {
    return (f) => {
      const v = get(f);
      if (!Array.isArray(v)) return false;
      for (const item of v as string[]) if (test(item)) return true;
      return false;
    };
  }
  return (f) => {
    const v = get(f);
    return typeof v === 'string' && test(v);
  };
}

/** Compiles a resolved condition into a closure, placeholders bound to the run. */
export function compileExpr(e: Expr, values: Record<string, readonly string[]>): Predicate {
  switch (e.type) {
    case 'const':
      return e.value ? () => true : () => false;
    case 'not': {
      const inner = compileExpr(e.item, values);
      return (f) => !inner(f);
    }
    case 'and': {
      const items = e.items.map((i) => compileExpr(i, values));
      if (items.length === 2) {
        const [a, b] = items as [Predicate, Predicate];
        return (f) => a(f) && b(f);
      }
      return (f) => {
        for (const p of items) if (!p(f)) return false;
        return true;
      };
    }
    case 'or': {
      const items = e.items.map((i) => compileExpr(i, values));
      return (f) => {
        for (const p of items) if (p(f)) return true;
        return false;
      };
    }
    case 'test':
      return compileTest(e, values);
  }
}
