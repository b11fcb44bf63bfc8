import type { z } from 'zod';
import type { ConfigIssue } from '../errors.js';
import { parseYaml, readYamlFile, type YamlResult } from './yaml.js';
import { zodIssues } from './zod-issues.js';

/**
 * The one way a file a user writes (config, agent profile, trajectory, rule file, suite, matrix) is
 * read: bounded YAML parsing (yaml.ts), then the file's zod schema, with every problem returned as a
 * ConfigIssue — file, field path, what is wrong, the fix, and "did you mean" from the schema's own
 * keys at any depth. The caller adds the checks a schema cannot make (paths, cross-references).
 */

/** What kind of file is read: words for its sentences and the document that describes it. */
export type YamlFileKind = {
  /** The file's kind in sentences: "the config file does not exist". */
  what: string;
  /** The document listing every key, named in fixes. */
  docs: string;
  /** The syntax named in a parse error (default 'YAML'). */
  syntax?: string;
  /** The fix when the file does not exist (default 'check the path'). */
  missingFix?: string;
  /** The sentence when the document is not a mapping. */
  notMapping: { message: string; fix: string };
  /** Whether a bare list is a valid document (the schema takes it from there). */
  acceptsList?: boolean;
  /** The value of an empty document; without it, an empty file is "not a mapping". */
  empty?: unknown;
};

export type Loaded<T> = { ok: true; value: T } | { ok: false; issues: ConfigIssue[] };

/** Read a YAML file and validate it with `schema`: the typed value, or every issue found. */
export function loadYamlFile<S extends z.ZodType>(
  file: string,
  schema: S,
  kind: YamlFileKind,
): Loaded<z.output<S>> {
  const read = readYamlValue(file, kind);
  return read.ok ? validateYamlValue(file, read.value, schema, kind) : read;
}

/** Parse YAML text already read (rule files arrive as text) and validate it with `schema`. */
export function parseYamlText<S extends z.ZodType>(
  file: string,
  text: string,
  schema: S,
  kind: YamlFileKind,
): Loaded<z.output<S>> {
  const parsed = yamlIssues(file, parseYaml(text, kind.syntax), kind);
  return parsed.ok ? validateYamlValue(file, parsed.value, schema, kind) : parsed;
}

/** The parsed document of a YAML file (not validated), or the one issue saying why there is none. */
export function readYamlValue(file: string, kind: YamlFileKind): Loaded<unknown> {
  return yamlIssues(file, readYamlFile(file, kind.syntax), kind);
}

/** Validate an already-parsed document against `schema`. */
export function validateYamlValue<S extends z.ZodType>(
  file: string,
  raw: unknown,
  schema: S,
  kind: YamlFileKind,
): Loaded<z.output<S>> {
  const value = raw === null || raw === undefined ? (kind.empty ?? raw) : raw;
  const mapping = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!mapping && !(kind.acceptsList && Array.isArray(value))) {
    return { ok: false, issues: [{ file, field: '', ...kind.notMapping }] };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, issues: zodIssues({ file, schema, raw: value, docs: kind.docs }, parsed.error.issues) };
}

function yamlIssues(file: string, yaml: YamlResult, kind: YamlFileKind): Loaded<unknown> {
  if (yaml.ok) return yaml;
  const { problem } = yaml;
  const fail = (message: string, fix: string, line?: { line: number; col: number }): Loaded<unknown> => ({
    ok: false,
    issues: [{ file, field: '', message, fix, ...(line ? { line } : {}) }],
  });
  if (problem.read === 'missing')
    return fail(`the ${kind.what} file does not exist`, kind.missingFix ?? 'check the path');
  if (problem.read === 'not-a-file' && /folder/.test(problem.message))
    return fail(
      `this is a folder, not a ${kind.what} file`,
      `pass the ${kind.syntax ?? 'YAML'} file inside it`,
    );
  return problem.line
    ? fail(problem.message, 'correct the syntax there', problem.line)
    : fail(problem.message, problem.fix);
}
