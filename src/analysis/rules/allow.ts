import type { Expr } from './ast.js';
import { RuleProblem } from './resolve.js';
import type { AllowEntry, RuleClass } from './types.js';

const test = (field: string, op: Extract<Expr, { type: 'test' }>['op'], values: string[]): Expr => ({
  type: 'test',
  field,
  op,
  values,
});

/** The globs a config path entry stands for: relative = in the workspace, `~/` = HOME, a folder covers its contents. */
export function allowPathGlobs(path: string): string[] {
  const p = path.trim().replace(/\/+$/, '');
  if (p === '' || p.split('/').includes('..')) {
    throw new RuleProblem(
      `the path '${path}' is empty or climbs with '..'`,
      'give a workspace-relative path, ~/path or an absolute path',
    );
  }
  let abs: string;
  if (p.startsWith('~/')) abs = `$HOME/${p.slice(2)}`;
  else if (p.startsWith('/') || p.startsWith('$')) abs = p;
  else abs = `$WORKSPACE/${p.replace(/^(\.\/)+/, '')}`;
  return abs.endsWith('/**') ? [abs] : [abs, `${abs}/**`];
}

/**
 * One config allow entry as an exception condition. A string (or `{condition}`) is a condition;
 * `{path}` matches the path the call changes (for execution rules: the program that runs);
 * `{host}` matches a destination in allow-list syntax (DNS questions by name alone).
 */
export function allowEntryExpr(
  entry: AllowEntry,
  ruleClass: RuleClass,
  resolve: (text: string) => Expr,
): Expr {
  if (typeof entry === 'string') return resolve(entry);
  if ('condition' in entry) return resolve(entry.condition);
  if ('path' in entry) {
    const globs = allowPathGlobs(entry.path);
    if (ruleClass === 'execution') return test('program', 'glob', globs);
    return {
      type: 'and',
      items: [
        test('target', 'glob', globs),
        {
          type: 'or',
          items: [{ type: 'not', item: test('source', 'exists', []) }, test('source', 'glob', globs)],
        },
      ],
    };
  }
  const host = entry.host.trim();
  if (host === '' || host.includes('/')) {
    throw new RuleProblem(`'${entry.host}' is not a host`, 'write host[:port], *.domain or an IP address');
  }
  return {
    type: 'or',
    items: [
      test('dest', 'hostmatch', [host]),
      {
        type: 'and',
        items: [
          test('kind', '=', ['net']),
          test('protocol', '=', ['dns']),
          test('host', 'hostmatch', [host]),
        ],
      },
    ],
  };
}
