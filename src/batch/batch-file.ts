import { type Dirent, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { AGENT_NAMES, isAgentName } from '../agents/index.js';
import { loadYamlFile, type YamlFileKind } from '../config/load-yaml-file.js';
import { ConfigError } from '../errors.js';
import type { AgentSpec } from '../reports/batch-types.js';

/*
 * The suite and matrix files. Both are refused whole, before anything runs, with one sentence
 * naming the file and the field: a typo in a batch of 60 runs must not surface after the 59th.
 */

const nonEmpty = z.string().min(1);
const Count = (what: string) =>
  z
    .number({ error: `${what} must be a whole number` })
    .int(`${what} must be a whole number`)
    .min(1, `${what} must be at least 1`);

const InlineAgentSchema = z.union([
  z.strictObject({ name: nonEmpty, agent_command: z.union([nonEmpty, z.array(nonEmpty).min(1)]) }),
  z.strictObject({ name: nonEmpty, agent_profile: nonEmpty }),
]);
const AgentEntrySchema = z.union([nonEmpty, InlineAgentSchema]);

export const SuiteFileSchema = z.strictObject({
  /** Config paths or globs (`attacks/*\/config.yaml`, `**\/config.yaml`), relative to the suite file. */
  configs: z.array(nonEmpty).min(1),
  defaults: z
    .strictObject({
      agents: z.array(AgentEntrySchema).min(1).optional(),
      trials: Count('trials').optional(),
      workers: Count('workers').optional(),
    })
    .default({}),
});

export const MatrixFileSchema = z
  .strictObject({
    tasks: z.array(nonEmpty).min(1).optional(),
    suite: nonEmpty.optional(),
    agents: z.array(AgentEntrySchema).min(1),
    trials: Count('trials').default(1),
    workers: Count('workers').optional(),
  })
  .refine((m) => (m.tasks === undefined) !== (m.suite === undefined), {
    message: 'give exactly one of tasks and suite',
    path: ['tasks'],
  });

export type SuiteFile = z.infer<typeof SuiteFileSchema> & { file: string; configPaths: string[] };
export type MatrixFile = {
  file: string;
  configPaths: string[];
  agents: AgentSpec[];
  trials: number;
  workers?: number;
};

function refuse(file: string, field: string, message: string, fix: string): never {
  throw new ConfigError([{ file, field, message, fix }]);
}

/** Suite and matrix files, as loadYamlFile names them in issues. */
function batchFile(what: 'suite' | 'matrix'): YamlFileKind {
  return {
    what,
    docs: 'docs/batches.md',
    notMapping: {
      message: 'must be a YAML mapping of keys to values',
      fix: `see docs/batches.md for the ${what} format`,
    },
  };
}

function readFile<S extends z.ZodType>(file: string, schema: S, what: 'suite' | 'matrix'): z.output<S> {
  const loaded = loadYamlFile(file, schema, batchFile(what));
  if (!loaded.ok) throw new ConfigError(loaded.issues);
  return loaded.value;
}

/** Turn the file's agent list into specs, refusing unknown built-ins and duplicate names. */
export function agentSpecs(
  file: string,
  field: string,
  entries: readonly unknown[],
  baseDir: string,
): AgentSpec[] {
  const specs: AgentSpec[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of entries.entries()) {
    const entry = raw as string | { name: string; agent_command?: string | string[]; agent_profile?: string };
    let spec: AgentSpec;
    if (typeof entry === 'string') {
      if (!isAgentName(entry))
        refuse(
          file,
          `${field}[${i}]`,
          `'${entry}' is not a built-in agent`,
          `use one of ${AGENT_NAMES.join(', ')}, or an inline {name, agent_command}`,
        );
      spec = { name: entry, kind: 'builtin', adapter: entry };
    } else if (entry.agent_command !== undefined) {
      const argv =
        typeof entry.agent_command === 'string' ? entry.agent_command.split(/\s+/) : entry.agent_command;
      // `./x` in an inline command is relative to the batch file, not to the run's workspace.
      spec = {
        name: entry.name,
        kind: 'command',
        argv: argv.map((a) => (a.startsWith('./') || a.startsWith('../') ? path.resolve(baseDir, a) : a)),
      };
    } else {
      spec = { name: entry.name, kind: 'profile', profile: entry.agent_profile as string };
    }
    if (seen.has(spec.name))
      refuse(
        file,
        `${field}[${i}]`,
        `agent name '${spec.name}' appears twice`,
        'give every agent a distinct name',
      );
    seen.add(spec.name);
    specs.push(spec);
  }
  return specs;
}

/** Expand config paths and globs (`*` one level, `**` any depth) relative to `baseDir`; a missing config is refused. */
export function expandConfigs(
  file: string,
  field: string,
  patterns: readonly string[],
  baseDir: string,
): string[] {
  const out: string[] = [];
  for (const [i, pattern] of patterns.entries()) {
    const problem = recursiveGlobProblem(pattern);
    if (problem)
      refuse(
        file,
        `${field}[${i}]`,
        problem,
        `write it relative to this file's folder without '..', e.g. '${pattern.replace(/^(\/|~\/?|(\.\.\/)+)+/, '')}', or move the file up`,
      );
    const matches = /[*?[\]{}]/.test(pattern)
      ? globPaths(baseDir, pattern)
      : [path.resolve(baseDir, pattern)];
    if (matches.length === 0)
      refuse(
        file,
        `${field}[${i}]`,
        `'${pattern}' matches no config file`,
        'fix the glob or remove the entry',
      );
    for (const m of matches) {
      if (!existsSync(m) || !statSync(m).isFile())
        refuse(
          file,
          `${field}[${i}]`,
          `config ${m} does not exist`,
          'check the path (relative to this file)',
        );
      if (!out.includes(m)) out.push(m);
    }
  }
  return out;
}

/**
 * Why a recursive (`**`) config glob is refused, or null. `**` walks every folder below where it
 * starts; from `/` or above the batch file's folder that is a walk of the disk, not a list of
 * tasks. So, like the path globs of a task config, it may be neither absolute nor climb with `..`.
 */
export function recursiveGlobProblem(pattern: string): string | null {
  const parts = pattern.split('/');
  if (!parts.includes('**')) return null;
  if (path.isAbsolute(pattern) || pattern.startsWith('~'))
    return `'${pattern}' is an absolute recursive glob, which would walk the whole disk`;
  if (parts.includes('..')) return `'${pattern}' climbs out of this file's folder with '..' before recursing`;
  return null;
}

/** Folders a `**` skips: version control, tool state and dependencies hold no task configs. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.agentguard']);

/** `dir` and every folder below it, sorted, not following symlinks (no loops). */
function foldersBelow(dir: string): string[] {
  const out = [dir];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name)))
    if (e.isDirectory() && !e.name.startsWith('.') && !SKIPPED_DIRS.has(e.name))
      out.push(...foldersBelow(path.join(dir, e.name)));
  return out;
}

function globPaths(baseDir: string, pattern: string): string[] {
  let current = [path.resolve(baseDir, path.isAbsolute(pattern) ? '/' : '.')];
  for (const segment of pattern.split('/').filter((s) => s !== '' && s !== '.')) {
    if (segment === '**') {
      current = [...new Set(current.flatMap(foldersBelow))];
      continue;
    }
    if (!/[*?[\]{}]/.test(segment)) {
      current = current.map((d) => path.join(d, segment)).filter((p) => existsSync(p));
      continue;
    }
    const match = picomatch(segment);
    current = current.flatMap((d) => {
      try {
        return readdirSync(d)
          .filter((n) => match(n))
          .sort()
          .map((n) => path.join(d, n));
      } catch {
        return [];
      }
    });
  }
  return current;
}

export function loadSuiteFile(file: string): SuiteFile {
  const abs = path.resolve(file);
  const suite = readFile(abs, SuiteFileSchema, 'suite');
  return {
    ...suite,
    file: abs,
    configPaths: expandConfigs(abs, 'configs', suite.configs, path.dirname(abs)),
  };
}

export function loadMatrixFile(file: string): MatrixFile {
  const abs = path.resolve(file);
  const m = readFile(abs, MatrixFileSchema, 'matrix');
  const dir = path.dirname(abs);
  const configPaths = m.tasks
    ? expandConfigs(abs, 'tasks', m.tasks, dir)
    : loadSuiteFile(path.resolve(dir, m.suite as string)).configPaths;
  return {
    file: abs,
    configPaths,
    agents: agentSpecs(abs, 'agents', m.agents, dir),
    trials: m.trials,
    ...(m.workers !== undefined ? { workers: m.workers } : {}),
  };
}
