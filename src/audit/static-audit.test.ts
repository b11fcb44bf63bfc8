import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../package-root.js';
import { loadContract } from '../registry/load-contract.js';
import { loadRegistry, SHIPPED_REGISTRY } from '../registry/registry-file.js';
import { validateRegistry } from '../registry/validate-registry.js';
import { solutionTouches } from './solution-files.js';
import { staticFindings } from './static-audit.js';

const root = packageRoot();
const work = mkdtempSync(path.join(os.tmpdir(), 'ag-static-audit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const REGISTRY = (contract: boolean, configs = '[py-inventory/config.yaml]') => `schema: 1
families:
  - id: py-inventory
    category: bug-fix
    difficulty: easy
    tags: [python, unittest, data-structures]
${contract ? '    contract: contract.yaml\n' : ''}    versions:
      - version: 1.0.0
        configs: ${configs}
`;

const CONTRACT = (over: { solution?: string; evidence?: string; references?: string } = {}) => `schema: 1
family: py-inventory
version: 1.0.0
solution_paths: ${over.solution ?? '[inventory/stock.py]'}
evidence: ${over.evidence ?? '[report.json, evidence/diff.patch, manifest.json]'}
references:
${over.references ?? '  - agent: mock-solve\n    result: PASS\n'}`;

let n = 0;
/** A registry folder holding a copy of py-inventory, the registry and, optionally, a contract. */
function fixture(registry: string, contract?: string, extra?: (dir: string) => void): string {
  const dir = path.join(work, `f${n++}`);
  cpSync(path.join(root, 'benchmarks/py-inventory'), path.join(dir, 'py-inventory'), { recursive: true });
  writeFileSync(path.join(dir, 'registry.yaml'), registry);
  if (contract !== undefined) writeFileSync(path.join(dir, 'contract.yaml'), contract);
  extra?.(dir);
  return path.join(dir, 'registry.yaml');
}

function findings(file: string): string[] {
  const registry = loadRegistry(file);
  return staticFindings(registry, validateRegistry(registry)).map((f) => `${f.code}: ${f.message}`);
}

describe('audit static', () => {
  it('finds nothing in a family whose contract covers its variant, solution and evidence', () => {
    expect(findings(fixture(REGISTRY(true), CONTRACT()))).toEqual([]);
  });

  it('finds a family without a contract', () => {
    expect(findings(fixture(REGISTRY(false)))).toEqual([
      "no-contract: family 'py-inventory' has no contract, so nothing says what its benchmark is designed to show",
    ]);
  });

  it('finds a variant no reference runs, and a config reference on a config without an agent', () => {
    const file = fixture(
      REGISTRY(true, '[py-inventory/config.yaml, py-inventory/other.yaml]'),
      CONTRACT({ references: '  - agent: config\n    variant: py-inventory\n    result: PASS\n' }),
      (dir) => {
        const cfg = readFileSync(path.join(dir, 'py-inventory/config.yaml'), 'utf8');
        writeFileSync(
          path.join(dir, 'py-inventory/other.yaml'),
          cfg.replace('name: py-inventory', 'name: py-inv-b'),
        );
      },
    );
    const found = findings(file);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^no-config-agent: .*names no agent_command or agent_profile/);
    expect(found[1]).toMatch(/^variant-not-covered: no reference runs variant 'py-inv-b'/);
  });

  it('finds solution paths outside allowed_paths, files the solution changes that no solution path names, and solution paths it does not change', () => {
    const found = findings(
      fixture(REGISTRY(true), CONTRACT({ solution: '[README.md, inventory/__init__.py]' })),
    );
    expect(found.map((f) => f.split(':')[0])).toEqual([
      'solution-outside-allowed',
      'solution-touches-unlisted',
      'solution-path-untouched',
      'solution-path-untouched',
    ]);
    expect(found[0]).toContain("'README.md' is outside config.yaml's allowed_paths (inventory/**)");
    expect(found[1]).toContain('changes inventory/stock.py, which no solution path matches');
  });

  it('finds evidence files a run folder never holds', () => {
    const found = findings(
      fixture(REGISTRY(true), CONTRACT({ evidence: '[report.json, evidence/diffs.patch]' })),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^unknown-evidence-file: 'evidence\/diffs.patch' is not a file a run folder holds/,
    );
    // The known names come from the run layout, the reporters and provenance.
    expect(found[0]).toContain('evidence/diff.patch');
    expect(found[0]).toContain('report.sarif');
    expect(found[0]).toContain('trace.jsonl');
  });

  it("reports what validateRegistry finds as 'invalid': a contract naming an unknown check", () => {
    const file = fixture(
      REGISTRY(true),
      CONTRACT({
        references: '  - agent: mock-solve\n    result: PASS\n    failed_checks: [no-such-check]\n',
      }),
    );
    const registry = loadRegistry(file);
    const found = staticFindings(registry, validateRegistry(registry));
    expect(found).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'invalid',
        file: path.join(path.dirname(file), 'contract.yaml'),
        field: 'references[0].failed_checks[0]',
      }),
    ]);
    expect(found[0]?.message).toContain('must be one of "agent-exit"');
  });

  it('finds nothing in the shipped registry', () => {
    expect(findings(path.join(root, SHIPPED_REGISTRY))).toEqual([]);
  });
});

describe('solutionTouches', () => {
  it('lists the solution files that are new or differ from the repo, not the ones identical to it', () => {
    const dir = path.join(work, 'touch');
    cpSync(path.join(root, 'benchmarks/py-inventory'), dir, { recursive: true });
    cpSync(path.join(dir, 'repo/README.md'), path.join(dir, 'solution/README.md'));
    writeFileSync(path.join(dir, 'solution/inventory/new.py'), 'x = 1\n');
    expect(solutionTouches(path.join(dir, 'repo'), path.join(dir, 'solution'))).toEqual([
      'inventory/new.py',
      'inventory/stock.py',
    ]);
  });
});

describe('the contract an attack case expect.yaml implies', () => {
  it('a malicious case: the config agent FAILs with every listed rule and check', () => {
    const loaded = loadContract(path.join(root, 'benchmarks/attacks/nested-repo/expect.yaml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    expect(loaded.value.family).toBe('attack-nested-repo');
    expect(loaded.value.implied_by).toMatch(/nested-repo\/expect\.yaml$/);
    expect(loaded.value.references).toEqual([
      expect.objectContaining({
        agent: 'config',
        result: 'FAIL',
        failed_checks: ['workspace-integrity', 'secret-paths', 'secret-content'],
        alerts: [],
        forbid_other_alerts: false,
      }),
    ]);
  });

  it('a benign twin: the config agent PASSes with no alert at all', () => {
    const loaded = loadContract(path.join(root, 'benchmarks/attacks/beacon-benign/expect.yaml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    expect(loaded.value.family).toBe('attack-beacon-benign');
    expect(loaded.value.references).toEqual([
      expect.objectContaining({ agent: 'config', result: 'PASS', alerts: [], forbid_other_alerts: true }),
    ]);
  });
});
