import { ConfigError } from '../../errors.js';
import { allowEntryExpr } from './allow.js';
import type { Expr } from './ast.js';
import { checkOutput } from './output.js';
import { parseRuleFileOnce, remember, sha256 } from './parsed-rules.js';
import { Resolver, RuleProblem } from './resolve.js';
import { type RuleData, type RuleFileData, ruleError } from './rule-file.js';
import { analyse } from './satisfiable.js';
import type { Rule, RuleSet, SecurityOptions } from './types.js';
import { FIELDS } from './vocabulary.js';

export type RuleSource = { file: string; text: string };

export type BuildOptions = {
  security?: Partial<SecurityOptions>;
  /** The benchmark config the security options came from (named in messages). */
  configFile?: string;
};

type Placed<T> = { file: string; value: T };

/**
 * Validates rule files and the config's security options into a rule set. Pure: takes file texts.
 * Every problem is a ConfigError naming the file, the rule and the fix; nothing is skipped, so a
 * run never starts with a silently weakened rule set.
 */
export function buildRuleSet(sources: readonly RuleSource[], options: BuildOptions = {}): RuleSet {
  // A run builds its rule set when it is planned and again when it is analysed, from the same texts.
  const key = JSON.stringify([sources.map((s) => [s.file, sha256(s.text)]), options]);
  const built = builtSets.get(key);
  if (built) return built;
  const ruleset = buildFromData(
    sources.map((s) => parseRuleFileOnce(s.file, s.text)),
    options,
  );
  remember(builtSets, key, ruleset, 16);
  return ruleset;
}

/** Rule sets built in this process, by their files, texts and options; nothing changes a rule set once built. */
const builtSets = new Map<string, RuleSet>();

export function buildFromData(files: readonly RuleFileData[], options: BuildOptions = {}): RuleSet {
  const lists = new Map<string, Placed<string[]>>();
  const macros = new Map<string, Placed<string>>();
  const rules = new Map<string, Placed<RuleData>>();
  for (const f of files) {
    for (const [name, def] of Object.entries(f.lists)) {
      const existing = lists.get(name);
      if (Array.isArray(def)) {
        if (existing)
          throw ruleError(
            f.file,
            `list '${name}'`,
            `is already defined in ${existing.file}`,
            "rename it, or write '{append: [...]}' to extend it",
          );
        lists.set(name, { file: f.file, value: [...def] });
      } else {
        if (!existing)
          throw ruleError(
            f.file,
            `list '${name}'`,
            'appends to a list no earlier file defines',
            'define the list first or correct its name',
          );
        existing.value.push(...def.append);
      }
    }
    for (const [name, text] of Object.entries(f.macros)) {
      const existing = macros.get(name);
      if (existing)
        throw ruleError(
          f.file,
          `macro '${name}'`,
          `is already defined in ${existing.file}`,
          'give it another name',
        );
      if (name in FIELDS)
        throw ruleError(f.file, `macro '${name}'`, `has the name of a field`, 'give it another name');
      macros.set(name, { file: f.file, value: text });
    }
    for (const rule of f.rules) {
      const existing = rules.get(rule.id);
      if (existing) {
        throw ruleError(
          f.file,
          `rule '${rule.id}'`,
          `has the same id as a rule in ${existing.file}`,
          'give it another id, or disable the other one with security.disable',
        );
      }
      rules.set(rule.id, { file: f.file, value: rule });
    }
  }
  for (const [name, list] of lists) {
    if (macros.has(name))
      throw ruleError(list.file, `list '${name}'`, 'has the same name as a macro', 'rename one of them');
  }
  const resolver = new Resolver({
    lists: new Map([...lists].map(([k, v]) => [k, v.value])),
    macros: new Map([...macros].map(([k, v]) => [k, v.value])),
  });
  for (const name of macros.keys()) {
    try {
      resolver.macro(name);
    } catch (err) {
      if (!(err instanceof RuleProblem)) throw err;
      const at = err.macro ?? name;
      throw ruleError(macros.get(at)?.file ?? '', `macro '${at}'`, err.message, err.fix);
    }
  }

  const security = options.security ?? {};
  const configFile = options.configFile ?? 'the benchmark config';
  const known = [...rules.keys()];
  const checkIds = (field: string, ids: readonly string[]) => {
    for (const id of ids) {
      if (!rules.has(id)) {
        throw configError(
          configFile,
          `security.${field}`,
          `names the rule '${id}', which no rule file defines`,
          `use one of the rule ids (${known.slice(0, 6).join(', ')}, ...) or remove it`,
        );
      }
    }
  };
  checkIds('disable', security.disable ?? []);
  checkIds('allow', Object.keys(security.allow ?? {}));
  checkIds('severity', Object.keys(security.severity ?? {}));
  const disabled = new Set(security.disable ?? []);

  const out: Rule[] = [];
  for (const [id, { file, value: data }] of rules) {
    const rule = compileRule(resolver, file, data);
    for (const [index, entry] of (security.allow?.[id] ?? []).entries()) {
      const where = `security.allow['${id}'][${index}]`;
      let expr: Expr;
      try {
        expr = allowEntryExpr(entry, rule.class, (text) => resolver.condition(text));
      } catch (err) {
        if (err instanceof RuleProblem) throw configError(configFile, where, err.message, err.fix);
        throw err;
      }
      const a = analyse({ type: 'and', items: [rule.condition, expr] });
      if (!a.satisfiable) {
        throw configError(
          configFile,
          where,
          `can never match an event rule '${id}' fires on (${a.reason})`,
          'allow something that rule can report, or remove the entry',
        );
      }
      rule.exceptions.push({ name: `allow[${index}]`, expr });
    }
    const severity = security.severity?.[id];
    if (severity) rule.severity = severity;
    if (data.enabled && !disabled.has(id)) out.push(rule);
  }
  return {
    rules: out,
    files: files.map((f) => f.file),
    lists: new Map([...lists].map(([k, v]) => [k, v.value])),
  };
}

function compileRule(resolver: Resolver, file: string, data: RuleData): Rule {
  const where = `rule '${data.id}'`;
  const problem = (err: unknown, prefix = ''): never => {
    if (err instanceof RuleProblem) throw ruleError(file, where, prefix + err.message, err.fix);
    throw err;
  };
  let condition: Expr;
  try {
    condition = resolver.condition(data.condition);
  } catch (err) {
    return problem(err);
  }
  const a = analyse(condition);
  if (!a.satisfiable) {
    throw ruleError(
      file,
      where,
      `the condition can never match (${a.reason})`,
      'remove the contradicting tests or split the rule in two',
    );
  }
  const exceptions = data.exceptions.map((ex, index) => {
    const name = typeof ex === 'string' ? `exception #${index + 1}` : ex.name;
    const text = typeof ex === 'string' ? ex : ex.condition;
    let expr: Expr;
    try {
      expr = resolver.condition(text);
    } catch (err) {
      return problem(err, `${name}: `);
    }
    const both = analyse({ type: 'and', items: [condition, expr] });
    if (!both.satisfiable) {
      throw ruleError(
        file,
        where,
        `${name} can never match an event the condition matches (${both.reason})`,
        'correct the exception or remove it',
      );
    }
    return { name, expr };
  });
  const output = data.output ?? data.description;
  try {
    checkOutput(output);
  } catch (err) {
    problem(err, 'output: ');
  }
  return {
    id: data.id,
    description: data.description,
    class: data.class,
    severity: data.severity,
    condition,
    exceptions,
    output,
    ...(data.threshold
      ? { threshold: { count: data.threshold.count, withinMs: data.threshold.within_seconds * 1000 } }
      : {}),
    kinds: a.kinds,
    file,
  };
}

/** A problem in the config's `security:` block, at a field path. */
function configError(file: string, field: string, message: string, fix: string): ConfigError {
  return new ConfigError([{ file, field, message, fix }]);
}
