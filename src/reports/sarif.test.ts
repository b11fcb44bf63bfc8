import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv-draft-04';
import { describe, expect, it } from 'vitest';
import type { Alert } from '../analysis/rules/types.js';
import { buildRunReport } from './build.js';
import { renderSarif } from './sarif.js';
import { FIXTURE_RUN_DIR, fixtureAnalysis, fixtureBundle } from './test-fixture.js';

const schemaFile = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../test/fixtures/schemas/sarif-2.1.0-rtm.5.json',
);
const validate = new AjvModule.default({ strict: false, allErrors: true, unicodeRegExp: false }).compile(
  JSON.parse(readFileSync(schemaFile, 'utf8')),
);

const alert = (over: Partial<Alert>): Alert => ({
  rule: 'secrets-canary-read',
  class: 'secrets',
  severity: 'critical',
  description: 'A planted canary credential was read.',
  message: 'cat (pid 12) opened the canary credential /root/.ssh/id_rsa',
  syscall: 'openat',
  path: '/root/.ssh/id_rsa',
  seq: 40,
  ts: 812,
  count: 1,
  process: {
    pid: 12,
    exe: '/usr/bin/cat',
    argv: ['cat', '/root/.ssh/id_rsa'],
    chain: [{ pid: 12, exe: '/usr/bin/cat', argv: ['cat'] }],
  },
  ...over,
});

function sarifOf(alerts: Alert[]) {
  const analysis = { ...fixtureAnalysis(), alerts };
  return JSON.parse(renderSarif(buildRunReport(fixtureBundle(), analysis), '0.1.0'));
}

describe('renderSarif', () => {
  it('is valid SARIF 2.1.0 with failed checks and alerts as results', () => {
    const sarif = sarifOf([
      alert({}),
      alert({
        rule: 'persist-git-hook',
        class: 'persistence',
        path: `${FIXTURE_RUN_DIR}/repo/.git/hooks/pre-commit`,
      }),
      alert({
        rule: 'net-dns-not-allowed',
        class: 'network',
        severity: 'warning',
        path: undefined,
        host: 'x.evil.test',
        port: 53,
      }),
    ]);
    const ok = validate(sarif);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    const results = sarif.runs[0].results;
    const ids = results.map((r: { ruleId: string }) => r.ruleId);
    expect(ids).toContain('rule/secrets-canary-read');
    expect(ids.some((id: string) => id.startsWith('check/'))).toBe(true);
    const hook = results.find((r: { ruleId: string }) => r.ruleId === 'rule/persist-git-hook');
    expect(hook.locations[0].physicalLocation.artifactLocation).toEqual({
      uri: '.git/hooks/pre-commit',
      uriBaseId: 'WORKSPACE',
    });
    const key = results.find((r: { ruleId: string }) => r.ruleId === 'rule/secrets-canary-read');
    expect(key.locations[0].physicalLocation.artifactLocation.uri).toBe('file:///root/.ssh/id_rsa');
    expect(key.level).toBe('error');
    const dns = results.find((r: { ruleId: string }) => r.ruleId === 'rule/net-dns-not-allowed');
    expect(dns.level).toBe('warning');
    expect(dns.properties.host).toBe('x.evil.test');
    // Every result points at a rule of the driver, by id and index.
    for (const r of results) expect(sarif.runs[0].tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
  });

  it('stays valid with nothing to report', () => {
    const analysis = {
      ...fixtureAnalysis(),
      alerts: [],
      checks: fixtureAnalysis().checks.map((c) => ({ ...c, passed: true })),
    };
    const sarif = JSON.parse(renderSarif(buildRunReport(fixtureBundle(), analysis), '0.1.0'));
    expect(validate(sarif)).toBe(true);
    expect(sarif.runs[0].results).toEqual([]);
  });

  it('a broken document fails the schema (the validator is real)', () => {
    const sarif = sarifOf([alert({})]);
    sarif.runs[0].results[0].level = 'fatal';
    expect(validate(sarif)).toBe(false);
  });
});
