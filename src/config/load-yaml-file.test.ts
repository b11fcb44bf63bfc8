import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, formatIssue } from '../errors.js';
import { loadConfig, loadConfigOrThrow } from './load.js';
import { loadYamlFile, type YamlFileKind } from './load-yaml-file.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-load-yaml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(path.join(dir, 'repo'));

const BASE = 'name: t\ntask: {prompt: p}\nrepo: repo\ntest_command: [make, test]\n';

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

function configIssues(text: string) {
  const result = loadConfig(write('config.yaml', text));
  if (result.ok) throw new Error('the config loaded');
  return result.issues;
}

describe('config issues: did you mean, at every depth', () => {
  it('a nested typo (network.alow) suggests allow, not "remove it"', () => {
    const [issue, ...rest] = configIssues(`${BASE}network: {mode: allowlist, alow: [example.com]}\n`);
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ field: 'network.alow', suggestion: 'allow' });
    expect(formatIssue(issue as never)).toMatch(
      /config\.yaml: field 'network\.alow': 'alow' is not a known key\. Fix: did you mean 'allow'\? See docs\/config\.md\.$/,
    );
  });

  it('inside a list of mappings, a record of lists and a union of mappings', () => {
    const issues = configIssues(
      `${BASE}secret_detectors: [{name: a, literl: abcdefgh}]\nsecurity: {allow: {some-rule: [{pth: x}]}}\ncontainer: {image: x, memroy: 2g}\n`,
    );
    expect(issues.map((i) => [i.field, i.suggestion])).toEqual([
      ['secret_detectors[0].literl', 'literal'],
      ['container.memroy', 'memory'],
      ['security.allow.some-rule[0].pth', 'path'],
    ]);
  });

  it('a misspelt key of a closed-key mapping (severity per check) suggests the key', () => {
    const [issue] = configIssues(`${BASE}severity: {difsize: error}\n`);
    expect(issue).toMatchObject({ field: 'severity.difsize', suggestion: 'diff-size' });
  });

  it('a misspelt value of a closed set suggests the value', () => {
    const [issue] = configIssues(`${BASE}network: {mode: allowlst}\n`);
    expect(issue).toMatchObject({ field: 'network.mode', suggestion: 'allowlist' });
    expect(issue?.fix).toContain("did you mean 'allowlist'?");
  });

  it('every issue of the file at once; the ConfigError carries them, one line each', () => {
    const text = `${BASE}timeout_seconds: soon\nnetwork: {alow: []}\nagent_comand: [x]\n`;
    const issues = configIssues(text);
    expect(issues.map((i) => i.field)).toEqual(['network.alow', 'agent_comand', 'timeout_seconds']);
    let caught: unknown;
    try {
      loadConfigOrThrow(path.join(dir, 'config.yaml'));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).issues).toEqual(issues);
    expect((caught as Error).message.split('\n')).toEqual(issues.map(formatIssue));
  });

  it('a typo of a required key is one issue, not also "missing"', () => {
    const issues = configIssues(BASE.replace('test_command', 'test_comand'));
    expect(issues.map((i) => [i.field, i.suggestion])).toEqual([['test_comand', 'test_command']]);
  });
});

describe('loadYamlFile with any schema', () => {
  const kind: YamlFileKind = {
    what: 'example',
    docs: 'docs/example.md',
    notMapping: { message: 'must be a mapping', fix: 'write keys' },
  };
  const Shape = z.strictObject({
    items: z.record(z.string(), z.strictObject({ size: z.number(), colour: z.string().optional() })),
    pick: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('file'), path: z.string() }),
      z.strictObject({ kind: z.literal('host'), hostname: z.string() }),
    ]),
  });

  it('suggests keys inside record values and the discriminated branch the value names', () => {
    const file = write('x.yaml', 'items: {a: {size: 1, colur: red}}\npick: {kind: host, hostnme: h}\n');
    const result = loadYamlFile(file, Shape, kind);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.field, i.suggestion, i.fix])).toEqual([
      ['items.a.colur', 'colour', "did you mean 'colour'? See docs/example.md"],
      ['pick.hostnme', 'hostname', "did you mean 'hostname'? See docs/example.md"],
    ]);
  });

  it('a wrong discriminator value is named with the possible ones', () => {
    const file = write('y.yaml', 'items: {}\npick: {kind: hots}\n');
    const result = loadYamlFile(file, Shape, kind);
    expect(result.ok ? [] : result.issues.map((i) => [i.field, i.suggestion])).toEqual([
      ['pick.kind', 'host'],
    ]);
  });

  it('the typed value when the file is valid, and one issue for a file that is not there', () => {
    const file = write('z.yaml', 'items: {a: {size: 2}}\npick: {kind: file, path: /x}\n');
    expect(loadYamlFile(file, Shape, kind)).toEqual({
      ok: true,
      value: { items: { a: { size: 2 } }, pick: { kind: 'file', path: '/x' } },
    });
    expect(loadYamlFile(path.join(dir, 'none.yaml'), Shape, kind)).toEqual({
      ok: false,
      issues: [
        {
          file: path.join(dir, 'none.yaml'),
          field: '',
          message: 'the example file does not exist',
          fix: 'check the path',
        },
      ],
    });
  });
});
