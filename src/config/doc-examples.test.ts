import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadRuleSet } from '../analysis/rules/load-rules.js';
import { packageRoot } from '../package-root.js';
import { HOST_POLICY_KEYS, readHostPolicy } from '../policy/host-policy.js';
import { loadConfig } from './load.js';
import { parseYaml } from './yaml.js';

/** The config examples of a markdown file: its yaml blocks that are a config or a part of one. */
function configExamples(doc: string): { line: number; value: Record<string, unknown> }[] {
  const text = readFileSync(path.join(packageRoot(), doc), 'utf8');
  const out: { line: number; value: Record<string, unknown> }[] = [];
  for (const m of text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)) {
    const line = text.slice(0, m.index).split('\n').length;
    const parsed = parseYaml(m[1] as string, `${doc}:${line}`);
    if (!parsed.ok) throw new Error(`${doc}:${line}: ${JSON.stringify(parsed)}`);
    const value = parsed.value as Record<string, unknown>;
    // A rule file (lists/macros/rules) is checked by rules/README's own tests; a host policy below.
    if (
      value &&
      typeof value === 'object' &&
      !('rules' in value && !('security' in value)) &&
      !isHostPolicy(value)
    )
      out.push({ line, value });
  }
  return out;
}

/** A host policy block: only the host policy's keys (host-policy.ts). */
function isHostPolicy(value: unknown): boolean {
  const keys = value && typeof value === 'object' ? Object.keys(value) : [];
  return keys.length > 0 && keys.every((k) => HOST_POLICY_KEYS.includes(k));
}

const BASE = {
  name: 'doc-example',
  task: { prompt: 'p' },
  repo: 'repo',
  test_command: ['true'],
};

const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-doc-examples-'));
mkdirSync(path.join(dir, 'repo'));
mkdirSync(path.join(dir, 'solution'));
mkdirSync(path.join(dir, 'deps', 'npm-cache'), { recursive: true });
mkdirSync(path.join(dir, 'deps', 'wheels'), { recursive: true });

/** The lockfiles and requirements files an example installs from, made in the template. */
function makeManifests(value: Record<string, unknown>): void {
  const deps = (value.setup as { dependencies?: Record<string, unknown>[] } | undefined)?.dependencies ?? [];
  for (const dep of deps) {
    for (const rel of [dep.lockfile, dep.requirements, dep.pyproject]) {
      if (typeof rel !== 'string') continue;
      mkdirSync(path.dirname(path.join(dir, 'repo', rel)), { recursive: true });
      writeFileSync(path.join(dir, 'repo', rel), '{}\n');
    }
  }
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Each config example in the docs loads as written (completed with the keys it leaves out), and its
 * `security` section builds a rule set: an example the loader refuses is a wrong document.
 */
describe.each(['docs/config.md', 'rules/README.md'])('%s examples load', (doc) => {
  const examples = configExamples(doc);
  it('has config examples', () => expect(examples.length).toBeGreaterThan(0));
  it.each(examples.map((e) => [e.line, e.value] as const))('the block at line %i', (line, value) => {
    const file = path.join(dir, `example-${line}.yaml`);
    makeManifests(value);
    const security = value.security as Record<string, unknown> | undefined;
    // Rule files an example names are the reader's own; the allowances are what is checked here.
    const config = { ...BASE, ...value, ...(security ? { security: { ...security, rules: [] } } : {}) };
    writeFileSync(file, stringify(config));
    const loaded = loadConfig(file);
    expect(loaded.ok ? [] : loaded.issues).toEqual([]);
    if (loaded.ok && security) {
      expect(() => loadRuleSet(loaded.value.security, { configFile: file })).not.toThrow();
    }
  });
});

describe('the security.allow example', () => {
  it('is a list per rule, the shape the loader requires, and a mapping is refused', () => {
    const example = configExamples('docs/config.md').find((e) => 'security' in e.value);
    const allow = (example?.value.security as { allow?: Record<string, unknown> } | undefined)?.allow;
    expect(allow && Object.values(allow).every(Array.isArray)).toBe(true);
    const file = path.join(dir, 'mapping.yaml');
    writeFileSync(
      file,
      stringify({ ...BASE, security: { allow: { 'exec-untrusted-dir': { path: '.venv/**' } } } }),
    );
    const loaded = loadConfig(file);
    expect(loaded.ok).toBe(false);
  });
});

describe('docs/config.md host policy example', () => {
  it('reads as a host policy', () => {
    const text = readFileSync(path.join(packageRoot(), 'docs/config.md'), 'utf8');
    const blocks = [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
      .map((m) => m[1] as string)
      .filter((b) => {
        const parsed = parseYaml(b);
        return parsed.ok && isHostPolicy(parsed.value);
      });
    expect(blocks).toHaveLength(1);
    const file = path.join(dir, 'host-policy.yaml');
    writeFileSync(file, blocks[0] as string, { mode: 0o644 });
    expect(readHostPolicy({ AGENTGUARD_HOST_POLICY: file }).host_paths).toEqual(['/opt/hostedtoolcache']);
  });
});
