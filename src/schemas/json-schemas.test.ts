import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseYaml, readYamlFile } from '../config/yaml.js';
import { packageRoot } from '../package-root.js';
import { jsonSchema, SCHEMA_KINDS, type SchemaKind } from './json-schemas.js';

const ROOT = packageRoot();
const Ajv2020 = Ajv2020Module.default;
// strict: the schemas must be well-formed JSON Schema, not only accepted by a lenient reader.
const ajv = new Ajv2020({ strict: true, allErrors: true, strictTypes: false });
const validators = Object.fromEntries(SCHEMA_KINDS.map((k) => [k, ajv.compile(jsonSchema(k))])) as Record<
  SchemaKind,
  ReturnType<typeof ajv.compile>
>;

function yamlOf(file: string): unknown {
  const read = readYamlFile(file);
  if (!read.ok) throw new Error(`${file}: ${read.problem.message}`);
  return read.value;
}

function errorsOf(kind: SchemaKind, value: unknown): string[] {
  const validate = validators[kind];
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

function walk(dir: string, keep: (rel: string) => boolean, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const child = path.join(rel, entry.name);
    if (entry.isDirectory()) {
      // Template repositories and reference solutions are the tasks' code, not agentguard files.
      if (['repo', 'solution', 'skills', 'skills-malicious', 'node_modules'].includes(entry.name)) continue;
      out.push(...walk(dir, keep, child));
    } else if (keep(child)) out.push(child);
  }
  return out.sort();
}

/** Every task config shipped under benchmarks/: config.yaml files and the real-agent tasks. */
const benchmarkConfigs = walk(path.join(ROOT, 'benchmarks'), (rel) => {
  const base = path.basename(rel);
  if (base === 'config.yaml') return true;
  // Trajectories (trajectory.yaml, trajectory-*.yaml) are the scripted model's, not task configs.
  return rel.startsWith('agents/') && base.endsWith('.yaml') && !/^trajectory(-.*)?\.yaml$/.test(base);
});
const ruleFiles = readdirSync(path.join(ROOT, 'rules'))
  .filter((n) => n.endsWith('.yaml'))
  .sort();
const profiles = readdirSync(path.join(ROOT, 'agents'))
  .filter((n) => n.endsWith('.yaml'))
  .sort();

/** The suite and matrix examples of docs/batches.md: the formats' only shipped instances. */
function docExample(heading: string): unknown {
  const text = readFileSync(path.join(ROOT, 'docs/batches.md'), 'utf8');
  const section = text.split(`## ${heading}\n`)[1] ?? '';
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error(`docs/batches.md has no yaml block under ${heading}`);
  const parsed = parseYaml(block);
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.value;
}

describe('JSON Schemas of the file formats', () => {
  it('finds the shipped files it is meant to check', () => {
    expect(benchmarkConfigs.length).toBeGreaterThanOrEqual(30);
    expect(benchmarkConfigs).toContain('js-slugify/config.yaml');
    expect(benchmarkConfigs).toContain('agents/citation-check/codex.yaml');
    expect(ruleFiles).toContain('secrets.yaml');
    expect(profiles).toContain('codex.yaml');
  });

  it.each(benchmarkConfigs)('benchmarks/%s validates as a task config', (rel) => {
    expect(errorsOf('config', yamlOf(path.join(ROOT, 'benchmarks', rel)))).toEqual([]);
  });

  it.each(ruleFiles)('rules/%s validates as a rule file', (name) => {
    expect(errorsOf('rules', yamlOf(path.join(ROOT, 'rules', name)))).toEqual([]);
  });

  it.each(profiles)('agents/%s validates as an agent profile', (name) => {
    expect(errorsOf('profile', yamlOf(path.join(ROOT, 'agents', name)))).toEqual([]);
  });

  it("docs/batches.md's suite and matrix examples validate", () => {
    expect(errorsOf('suite', docExample('Suite file'))).toEqual([]);
    expect(errorsOf('matrix', docExample('Matrix file'))).toEqual([]);
  });

  it("docs/ci.md's CI config validates as a CI config and not as a task config", () => {
    const text = readFileSync(path.join(ROOT, 'docs/ci.md'), 'utf8');
    const block = /## The CI config[\s\S]*?```yaml\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
    const parsed = parseYaml(block);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(errorsOf('ci', parsed.value)).toEqual([]);
    expect(errorsOf('config', parsed.value).join(' ')).toMatch(/required property 'name'/);
  });

  it('refuses what the loaders refuse: unknown keys, wrong enums, task keys in a CI config', () => {
    const config = yamlOf(path.join(ROOT, 'benchmarks/js-slugify/config.yaml')) as Record<string, unknown>;
    expect(errorsOf('config', { ...config, test_comand: 'npm test' }).join(' ')).toMatch(
      /additional properties/,
    );
    expect(errorsOf('config', { ...config, tracer: 'dtrace' }).join(' ')).toMatch(/allowed values/);
    expect(errorsOf('ci', { test_command: 'npm test', agent_profile: 'codex' }).join(' ')).toMatch(
      /additional properties/,
    );
    expect(errorsOf('rules', { rules: [{ id: 'x', description: 'd' }] }).join(' ')).toMatch(
      /required property 'class'/,
    );
    expect(errorsOf('matrix', { tasks: ['a.yaml'] }).join(' ')).toMatch(/required property 'agents'/);
    expect(
      errorsOf('profile', { schema_version: 1, name: 'Bad Name', bin: 'x', command: ['y'] }),
    ).not.toEqual([]);
  });
});
