import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { packageRoot } from '../package-root.js';
import { loadRegistry, SHIPPED_REGISTRY } from './registry-file.js';
import { validateRegistry } from './validate-registry.js';

const root = packageRoot();
const work = mkdtempSync(path.join(os.tmpdir(), 'ag-registry-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A registry folder holding a copy of py-inventory and the given registry and contract text. */
function fixture(name: string, registry: string, contract?: string): string {
  const dir = path.join(work, name);
  cpSync(path.join(root, 'benchmarks/py-inventory'), path.join(dir, 'py-inventory'), { recursive: true });
  writeFileSync(path.join(dir, 'registry.yaml'), registry);
  if (contract !== undefined) writeFileSync(path.join(dir, 'contract.yaml'), contract);
  return path.join(dir, 'registry.yaml');
}

const FAMILY = `schema: 1
families:
  - id: py-inventory
    category: bug-fix
    difficulty: easy
    tags: [python, unittest, data-structures]
    versions:
      - version: 1.0.0
        configs: [py-inventory/config.yaml]
`;

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.field}: ${i.message}`);
    throw err;
  }
  return [];
}

describe('the shipped registry', () => {
  const registry = loadRegistry(path.join(root, SHIPPED_REGISTRY));

  it('is valid against its configs and contracts', () => {
    expect(validateRegistry(registry).issues).toEqual([]);
  });

  it('lists every benchmark config shipped under benchmarks/', () => {
    const listed = new Set(registry.families.flatMap((f) => f.versions.flatMap((v) => v.configs)));
    const shipped = yamlFilesBelow(path.join(root, 'benchmarks')).filter((f) =>
      /^benchmark_id:/m.test(readFileSync(f, 'utf8')),
    );
    expect(shipped.length).toBeGreaterThan(50);
    expect(shipped.filter((f) => !listed.has(f))).toEqual([]);
  });
});

function yamlFilesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'repo' || e.name === 'node_modules' ? [] : yamlFilesBelow(p);
    return e.name.endsWith('.yaml') ? [p] : [];
  });
}

describe('a registry that is wrong', () => {
  it('names a missing config, a path outside its folder, a bad version and a duplicate family at once', () => {
    const file = fixture(
      'bad-shape',
      `${FAMILY}  - id: py-inventory
    category: x
    versions:
      - version: "1.0"
        configs: [missing/config.yaml, ../elsewhere.yaml]
`,
    );
    expect(issuesOf(() => loadRegistry(file))).toEqual([
      "families[1].id: family 'py-inventory' appears twice",
      "families[1].versions[0].version: '1.0' is not a strict semantic version",
      `families[1].versions[0].configs[0]: ${path.join(path.dirname(file), 'missing/config.yaml')} does not exist`,
      "families[1].versions[0].configs[1]: '../elsewhere.yaml' is outside the registry's folder",
    ]);
  });

  it('suggests the key a typo meant', () => {
    const file = fixture('typo', FAMILY.replace('category:', 'categroy:'));
    expect(() => loadRegistry(file)).toThrow(/'categroy' is not a known key.*did you mean 'category'/);
  });

  it('finds metadata that disagrees with the config', () => {
    const file = fixture(
      'mismatch',
      FAMILY.replace('difficulty: easy', 'difficulty: hard').replace('1.0.0', '1.1.0'),
    );
    const issues = validateRegistry(loadRegistry(file)).issues.map((i) => i.message);
    expect(issues).toEqual([
      "config.yaml has benchmark_version '1.0.0', the registry says '1.1.0'",
      "config.yaml has difficulty 'easy', the registry says 'hard'",
    ]);
  });

  it('finds a contract for another family, an unknown check, rule, agent and variant', () => {
    const contract = `schema: 1
family: other
version: 1.0.0
references:
  - agent: mock-solve
    variant: nope
    result: PASS
    alerts: [no-such-rule]
`;
    const file = fixture(
      'contract',
      FAMILY.replace('    versions:', '    contract: contract.yaml\n    versions:'),
      contract,
    );
    expect(validateRegistry(loadRegistry(file)).issues.map((i) => `${i.field}: ${i.message}`)).toEqual([
      "family: names family 'other' but the registry gives it to 'py-inventory'",
      "references[0].variant: 'nope' is not one of the family's configs",
      "references[0].alerts[0]: 'no-such-rule' is not a rule of this family's rule set",
    ]);
    writeFileSync(
      path.join(path.dirname(file), 'contract.yaml'),
      contract
        .replace('family: other', 'family: py-inventory')
        .replace('mock-solve', 'mock-sovle')
        .replace('alerts: [no-such-rule]', 'failed_checks: [scoep]'),
    );
    const issues = validateRegistry(loadRegistry(file)).issues.map((i) => `${i.field}: ${i.message}`);
    expect(issues.join('\n')).toMatch(/references\[0\]\.failed_checks\[0\]: must be one of .*"scope"/);
  });
});
