import type { Expr } from './ast.js';
import { compileExpr, type Predicate } from './compile.js';
import { compileOutput, type Renderer } from './output.js';
import { remember } from './parsed-rules.js';
import { specialize } from './specialize.js';
import type { Rule, RuleSet } from './types.js';

export type Compiled = { rule: Rule; test: Predicate; render: Renderer };
/** A rule set's closures by index key: the event kind, and for opens the access mode too. */
export type CompiledIndex = ReadonlyMap<string, readonly Compiled[]>;

const OPEN_ACCESS = ['read', 'write', 'create'] as const;

export const indexKey = (kind: string, access: string | undefined) =>
  access === undefined ? kind : `${kind}:${access}`;

function ruleExpr(rule: Rule): Expr {
  if (rule.exceptions.length === 0) return rule.condition;
  return {
    type: 'and',
    items: [rule.condition, { type: 'not', item: { type: 'or', items: rule.exceptions.map((e) => e.expr) } }],
  };
}

type Specialized = { rule: Rule; key: string; expr: Expr; render: Renderer };

/** Each rule narrowed to each index key it can match there (what does not depend on the run). */
const specializedSets = new WeakMap<RuleSet, readonly Specialized[]>();
/** A rule set's compiled index by the run's placeholder values: the few runs of this process. */
const compiledSets = new WeakMap<RuleSet, Map<string, CompiledIndex>>();
/** Runs whose indexes are kept per rule set: a run's live guard and its analysis, beside the other workers' runs. */
const KEEP_RUNS = 8;

function specialized(ruleset: RuleSet): readonly Specialized[] {
  const known = specializedSets.get(ruleset);
  if (known) return known;
  const out: Specialized[] = [];
  for (const rule of ruleset.rules) {
    const expr = ruleExpr(rule);
    const render = compileOutput(rule.output);
    for (const kind of rule.kinds) {
      const accesses = kind === 'open' ? [...OPEN_ACCESS, undefined] : [undefined];
      for (const access of accesses) {
        const special = specialize(expr, { kind, access });
        if (special.type === 'const' && !special.value) continue;
        out.push({ rule, key: indexKey(kind, access), expr: special, render });
      }
    }
  }
  specializedSets.set(ruleset, out);
  return out;
}

/**
 * The rule set compiled to closures with the run's placeholders bound, indexed by event kind. A
 * run asks for it from its live guard and again from its analysis (the agent's events, then the
 * tests'); the closures hold no state of a run (a matcher keeps that), so each asks the one index
 * built for the same rule set and values.
 */
export function compiledRules(ruleset: RuleSet, values: Record<string, readonly string[]>): CompiledIndex {
  const key = JSON.stringify(values);
  let byValues = compiledSets.get(ruleset);
  const known = byValues?.get(key);
  if (known) return known;
  const index = new Map<string, Compiled[]>();
  for (const s of specialized(ruleset)) {
    const list = index.get(s.key) ?? [];
    list.push({ rule: s.rule, test: compileExpr(s.expr, values), render: s.render });
    index.set(s.key, list);
  }
  if (!byValues) {
    byValues = new Map();
    compiledSets.set(ruleset, byValues);
  }
  remember(byValues, key, index, KEEP_RUNS);
  return index;
}
