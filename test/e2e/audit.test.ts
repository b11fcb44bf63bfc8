import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunAudit, StaticAudit } from '../../src/reports/audit-types.js';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';

/**
 * `agentguard audit static|run` on the shipped benchmarks: the static audit is clean, an execution
 * audit of py-inventory runs every reference for real (bwrap and the eBPF collector, the defaults)
 * and matches its contract, bad input exits 2, and no audit changes a byte under benchmarks/.
 */
const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canRun = isRoot && has('bwrap') && has('bpftrace') && has('python3');
if (!canRun) console.warn('audit run e2e skipped: it needs root, bwrap, bpftrace and python3');

const work = tempDir('ag-audit-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const TIMEOUT = 300_000;

/** sha256 over every path and file under a folder, in sorted order. */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const visit = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const r = path.join(rel, e.name);
      hash.update(`${r}\0`);
      if (e.isDirectory()) visit(r);
      else if (e.isFile()) hash.update(readFileSync(path.join(dir, r)));
    }
  };
  visit('');
  return hash.digest('hex');
}

let before = '';
beforeAll(() => {
  before = treeHash(BENCHMARKS);
});
afterAll(() => {
  // Audits never modify the shipped benchmarks.
  expect(treeHash(BENCHMARKS)).toBe(before);
});

const auditsIn = (out: string) => readdirSync(path.join(out, 'audits'));

describe('agentguard audit static', () => {
  it('finds nothing in the shipped registry, and writes audit.json and audit.md', async () => {
    const out = path.join(work, 'static');
    const r = await execCli(['audit', 'static', '--json', '--output-dir', out], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const audit = JSON.parse(r.stdout) as StaticAudit;
    expect(audit.findings).toEqual([]);
    // Every family of the shipped registry; an attack case's contract is implied by its expect.yaml.
    const shipped = (
      parse(readFileSync(path.join(BENCHMARKS, 'registry.yaml'), 'utf8')) as {
        families: { id: string; contract?: string }[];
      }
    ).families;
    expect(audit.families.map((f) => f.id).sort()).toEqual(shipped.map((f) => f.id).sort());
    const implied = shipped.filter((f) => f.contract?.endsWith('/expect.yaml'));
    expect(implied.length).toBeGreaterThan(40);
    expect(audit.families.filter((f) => f.implied_by !== null)).toHaveLength(implied.length);
    const [id] = auditsIn(out);
    expect(id).toBe(audit.audit_id);
    const dir = path.join(out, 'audits', audit.audit_id);
    expect(JSON.parse(readFileSync(path.join(dir, 'audit.json'), 'utf8'))).toEqual(audit);
    expect(readFileSync(path.join(dir, 'audit.md'), 'utf8')).toContain('No findings.');
  });
});

/** A copy of py-inventory with a registry and contract of its own. */
function registry(name: string, contract: string): string {
  const dir = path.join(work, name);
  cpSync(path.join(BENCHMARKS, 'py-inventory'), path.join(dir, 'py-inventory'), { recursive: true });
  writeFileSync(
    path.join(dir, 'registry.yaml'),
    'schema: 1\nfamilies:\n  - id: py-inventory\n    category: bug-fix\n    difficulty: easy\n' +
      '    tags: [python, unittest, data-structures]\n    contract: contract.yaml\n' +
      '    versions:\n      - version: 1.0.0\n        configs: [py-inventory/config.yaml]\n',
  );
  writeFileSync(path.join(dir, 'contract.yaml'), contract);
  return path.join(dir, 'registry.yaml');
}

describe('agentguard audit: bad input exits 2', () => {
  it('a contract for an unknown family: static and run both refuse, and run runs nothing', async () => {
    const file = registry(
      'unknown-family',
      'schema: 1\nfamily: py-inventroy\nversion: 1.0.0\nreferences:\n  - agent: mock-solve\n    result: PASS\n',
    );
    const out = path.join(work, 'bad1');
    const s = await execCli(['audit', 'static', '--registry', file, '--output-dir', out], { cwd: work });
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/contract\.yaml: field 'family'.*names family 'py-inventroy'/s);
    const r = await execCli(['audit', 'run', '--registry', file, '--output-dir', out], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/contract\.yaml: field 'family': names family 'py-inventroy'/);
    expect(existsSync(path.join(out, 'runs'))).toBe(false);
  });

  it('a contract naming an unknown check', async () => {
    const file = registry(
      'unknown-check',
      'schema: 1\nfamily: py-inventory\nversion: 1.0.0\nreferences:\n  - agent: mock-solve\n    result: FAIL\n    failed_checks: [tests-passed]\n',
    );
    const r = await execCli(['audit', 'run', '--registry', file, '--output-dir', path.join(work, 'bad2')], {
      cwd: work,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/contract\.yaml: field 'references\[0\]\.failed_checks\[0\]'/);
  });

  it('an unknown family, action or --trials', async () => {
    const family = await execCli(['audit', 'static', '--family', 'nope'], { cwd: work });
    expect(family.stderr).toMatch(/has no family 'nope'/);
    expect(family.code).toBe(2);
    const action = await execCli(['audit', 'check'], { cwd: work });
    expect(action.stderr).toMatch(/'audit check' is not a command/);
    expect(action.code).toBe(2);
    const trials = await execCli(['audit', 'run', '--family', 'py-inventory', '--trials', 'two'], {
      cwd: work,
    });
    expect(trials.stderr).toMatch(/--trials 'two' is not a whole number/);
    expect(trials.code).toBe(2);
  });
});

describe('agentguard audit run', () => {
  it('says a real agent that is not installed is skipped, runs nothing for it, and exits 0', async () => {
    const out = path.join(work, 'skip');
    const r = await execCli(['audit', 'run', '--family', 'citation-check', '--json', '--output-dir', out], {
      cwd: work,
      env: { AGENTGUARD_AGENT_CACHE: path.join(work, 'empty-cache') },
    });
    expect(r.code, r.stderr).toBe(0);
    const audit = JSON.parse(r.stdout) as RunAudit;
    expect(audit.outcomes).toHaveLength(16);
    for (const o of audit.outcomes) {
      expect(o.status).toBe('skipped');
      expect(o.skipped).toMatch(/^skipped: agent not installed: /);
    }
    expect(audit.batch).toBeNull();
    expect(existsSync(path.join(out, 'runs'))).toBe(false);
  });

  it.skipIf(!canRun)(
    'a contract the runs break: exit 1, and audit.json and audit.md name the mismatch and its run',
    async () => {
      const file = registry(
        'violated',
        'schema: 1\nfamily: py-inventory\nversion: 1.0.0\nreferences:\n  - agent: mock-noop\n    result: PASS\n',
      );
      const out = path.join(work, 'violated-out');
      const r = await execCli(['audit', 'run', '--registry', file, '--json', '--output-dir', out], {
        cwd: work,
      });
      expect(r.code, r.stderr).toBe(1);
      const audit = JSON.parse(r.stdout) as RunAudit;
      expect(audit.totals).toMatchObject({ match: 0, violated: 1 });
      const [trial] = audit.outcomes[0]?.trials ?? [];
      expect(trial?.mismatches.map((m) => `${m.severity} ${m.code}`)).toEqual([
        'error result',
        'warning unexpected-check-failed',
      ]);
      const md = readFileSync(path.join(out, 'audits', audit.audit_id, 'audit.md'), 'utf8');
      expect(md).toContain(`(${trial?.observed.run_dir}): ERROR result: result FAIL, the contract says PASS`);
    },
    TIMEOUT,
  );

  it.skipIf(!canRun)(
    'runs every py-inventory reference through the run pipeline, as a batch, and matches its contract',
    async () => {
      const out = path.join(work, 'run');
      const r = await execCli(
        ['audit', 'run', '--family', 'py-inventory', '--trials', '1', '--json', '--output-dir', out],
        // The real agent cache, so the pi-scripted variant runs when pi is installed here.
        { cwd: work, env: { HOME: os.homedir() } },
      );
      expect(r.code, r.stderr).toBe(0);
      const audit = JSON.parse(r.stdout) as RunAudit;
      const mocks = audit.outcomes.filter((o) => o.agent !== 'config');
      expect(mocks.map((o) => o.agent)).toEqual([
        'mock-solve',
        'mock-tamper-tests',
        'mock-out-of-scope',
        'mock-secret',
        'mock-noop',
      ]);
      for (const o of mocks)
        expect({ agent: o.agent, status: o.status }).toEqual({ agent: o.agent, status: 'match' });
      const scripted = audit.outcomes.find((o) => o.agent === 'config');
      expect(scripted?.variant).toBe('py-inventory-scripted');
      if (scripted?.status === 'skipped') expect(scripted.skipped).toMatch(/agent not installed/);
      else expect(scripted?.status).toBe('match');
      // Each child run keeps its report and manifest, and belongs to the audit's batch.
      const batch = audit.batch;
      expect(batch).not.toBeNull();
      expect(existsSync(path.join(batch?.dir ?? '', 'summary.json'))).toBe(true);
      for (const o of audit.outcomes)
        for (const t of o.trials) {
          const dir = t.observed.run_dir ?? '';
          expect(existsSync(path.join(dir, 'report.json'))).toBe(true);
          expect(existsSync(path.join(dir, 'manifest.json'))).toBe(true);
          const run = JSON.parse(readFileSync(path.join(dir, 'evidence/run.json'), 'utf8'));
          expect(run.batch?.id).toBe(batch?.id);
          expect(
            JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')).observation.sandbox.kind,
          ).toBe('bwrap');
        }
      // The batch and its runs are in history, as a matrix's are.
      const history = await execCli(['reports', 'batches', '--json', '--output-dir', out], { cwd: work });
      expect(history.code, history.stderr).toBe(0);
      const [row] = JSON.parse(history.stdout);
      expect(row).toMatchObject({ batch_id: batch?.id, kind: 'matrix', complete: true });
      // The audit's own report names the batch and every run.
      const md = readFileSync(path.join(out, 'audits', audit.audit_id, 'audit.md'), 'utf8');
      expect(md).toContain(batch?.id ?? '-');
      expect(md).toMatch(/\| py-inventory \| mock-secret \| py-inventory \| match \| FAIL \| 0 \|/);
    },
    TIMEOUT,
  );
});
