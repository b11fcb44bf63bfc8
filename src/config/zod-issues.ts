import type { z } from 'zod';
import { closestKey } from './closest-key.js';
import type { ConfigIssue } from './load.js';
import { BenchmarkConfigSchema } from './schema.js';

/** One zod issue of a config file as a ConfigIssue: the field, what is wrong, and the fix. */
export function zodIssue(file: string, issue: z.core.$ZodIssue): ConfigIssue {
  const field = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? '';
      const parentShape = shapeAt(issue.path);
      const guess = closestKey(key, parentShape);
      const full = field ? `${field}.${key}` : key;
      return {
        file,
        field: full,
        message: `'${key}' is not a known key${issue.keys.length > 1 ? ` (nor ${issue.keys.slice(1).join(', ')})` : ''}`,
        fix: guess
          ? `did you mean '${guess}'? See docs/config.md`
          : 'remove it; docs/config.md lists every key',
      };
    }
    case 'invalid_type':
      return typeIssue(file, field, issue.expected, issue.message);
    case 'invalid_union': {
      // Report the branch that got furthest (e.g. the list item that is not a string), not "Invalid input".
      const deepest = issue.errors
        .flat()
        .sort((a, b) => b.path.length - a.path.length)
        .find((e) => e.code === 'invalid_type');
      if (deepest && deepest.path.length > 0 && deepest.code === 'invalid_type') {
        const sub = deepest.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
        return typeIssue(file, `${field}${sub}`, deepest.expected, deepest.message);
      }
      if (/received undefined/.test(deepest?.message ?? '')) {
        return {
          file,
          field,
          message: 'is required but missing',
          fix: `add '${field}' (see docs/config.md)`,
        };
      }
      return {
        file,
        field,
        message: 'must be a string or a list of strings',
        fix: 'e.g. [npm, test] or "npm test"',
      };
    }
    case 'invalid_value':
      return {
        file,
        field,
        message: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`,
        fix: 'use one of those values',
      };
    case 'too_big':
    case 'too_small':
      return { file, field, ...boundIssue(field, issue) };
    case 'custom': {
      const fix = (issue.params as { fix?: string } | undefined)?.fix;
      return { file, field: field || 'task', message: issue.message, fix: fix ?? 'see docs/config.md' };
    }
    default:
      return { file, field: field || 'task', message: issue.message, fix: 'see docs/config.md' };
  }
}

/** "must be at most 604800 (7 days)", for a number out of its range. */
function boundIssue(
  field: string,
  issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall,
): { message: string; fix: string } {
  if (issue.origin !== 'number' && issue.origin !== 'int') {
    return { message: issue.message, fix: 'see docs/config.md' };
  }
  const big = issue.code === 'too_big';
  const limit = Number(big ? issue.maximum : issue.minimum);
  const inclusive = issue.inclusive !== false;
  const days = field.endsWith('_seconds') && big ? ` (${limit / 86400} days)` : '';
  const message = big
    ? `must be at most ${limit}${days}`
    : inclusive
      ? `must be at least ${limit}`
      : `must be more than ${limit}`;
  return { message, fix: `give a number in range${days ? '; a time limit of hours is usual' : ''}` };
}

function typeIssue(file: string, field: string, expected: string, message: string): ConfigIssue {
  const received = message.match(/received (\w+)/)?.[1] ?? 'something else';
  if (received === 'undefined') {
    return { file, field, message: 'is required but missing', fix: `add '${field}' (see docs/config.md)` };
  }
  const yamlHint =
    expected === 'string' && (received === 'boolean' || received === 'number')
      ? `quote it: YAML reads bare ${received === 'boolean' ? 'true/false/yes/no' : 'numbers'} as ${received}s`
      : `give a ${expected}`;
  return { file, field, message: `must be a ${expected}, not a ${received}`, fix: yamlHint };
}

function shapeAt(pathParts: PropertyKey[]): string[] {
  // Only the top level and `task` are objects with fixed keys.
  if (pathParts.length === 0) return Object.keys(BenchmarkConfigSchema.shape);
  if (pathParts[0] === 'task') return ['prompt', 'prompt_file'];
  if (pathParts[0] === 'secret_detectors') return ['name', 'literal', 'pattern'];
  return [];
}
