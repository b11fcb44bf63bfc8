import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadRuleSet } from '../../src/analysis/rules/load-rules.js';
import {
  type AttackCase,
  attackSuiteUnsupported,
  type CaseOutcome,
  judgeOutcome,
  loadAttackCases,
  runAttackCase,
} from '../../src/bench/attack-bench.js';
import { packageRoot } from '../../src/package-root.js';

/**
 * The attack suite (benchmarks/attacks), run for real: every malicious case must FAIL and raise at
 * least its expected rules, every benign twin must PASS with no alert at all. The same functions
 * drive `node dist/bench/attack-bench.js`, which reports recall, precision and detection times.
 */
const cases = loadAttackCases();
const rules = loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') }).rules;
const classOf = new Map(rules.map((r) => [r.id, r.class]));
/** Rules judged on the final diff (install hooks, piped scripts): they cannot fire while the agent runs. */
const diffOnly = new Set(rules.filter((r) => r.kinds.every((k) => k === 'patch')).map((r) => r.id));

const straceMissing = attackSuiteUnsupported('strace');
const ebpfMissing = attackSuiteUnsupported('ebpf');
if (straceMissing) console.warn(`attack suite skipped: ${straceMissing}`);
else if (ebpfMissing) console.warn(`attack suite under ebpf skipped: ${ebpfMissing}`);

const work = mkdtempSync(path.join(os.tmpdir(), 'ag-attacks-'));
// Seventy-odd run folders: on a loaded two-core machine their removal can take over a minute.
afterAll(() => rmSync(work, { recursive: true, force: true }), 300_000);

/** The config a twin shares with its malicious case: everything but the names and the description. */
function policy(c: AttackCase): Record<string, unknown> {
  const config = parse(readFileSync(c.config, 'utf8')) as Record<string, unknown>;
  const { name: _n, description: _d, benchmark_id: _b, ...rest } = config;
  return rest;
}

describe('the attack suite is well-formed', () => {
  const malicious = cases.filter((c) => c.expect.malicious);

  it('pairs every malicious case with a benign twin that has the same task and policy', () => {
    expect(malicious.length).toBeGreaterThanOrEqual(10);
    expect(cases.length).toBe(2 * malicious.length);
    for (const c of malicious) {
      const twin = cases.find((t) => t.name === `${c.name}-benign`);
      expect(twin, `${c.name} has no benign twin`).toBeDefined();
      expect(twin?.expect.malicious).toBe(false);
      expect(policy(twin as AttackCase)).toEqual(policy(c));
    }
  });

  it('expects only default rules, and covers every rule class', () => {
    const expected = malicious.flatMap((c) => c.expect.rules);
    for (const id of expected) expect(classOf.has(id), `${id} is not a default rule`).toBe(true);
    const classes = new Set(expected.map((id) => classOf.get(id)));
    expect([...classes].sort()).toEqual([
      'evasion',
      'execution',
      'integrity',
      'network',
      'persistence',
      'secrets',
    ]);
  });
});

/** The expected alerts name a process started by the skill step (its chain runs `.agents/skills/…`). */
function expectSkillAttribution(o: CaseOutcome): void {
  for (const rule of o.case.expect.rules) {
    const alerts = o.report?.alerts.filter((a) => a.rule === rule) ?? [];
    const bySkill = alerts.some((a) =>
      a.process.chain.some((p) => p.argv.join(' ').includes('.agents/skills/')),
    );
    expect(bySkill, `${o.case.name}: no ${rule} alert is attributed to the skill's helper`).toBe(true);
  }
}

describe.skipIf(straceMissing !== null)('attack suite under strace', () => {
  for (const c of cases) {
    const title = c.expect.malicious
      ? `${c.name}: FAILs with ${[...c.expect.rules, ...c.expect.checks].join(', ')}`
      : `${c.name}: PASSes with no alert`;
    it(title, { timeout: 90_000 }, async () => {
      const o = await runAttackCase(c, { cwd: work, tracer: 'strace' });
      expect(judgeOutcome(o)).toEqual([]);
      expect(o.report?.observation.tracer.kind).toBe('strace');
      if (!c.expect.malicious) return;
      expectSkillAttribution(o);
      // Alerts from system calls and proxy records are raised live; only diff findings come after.
      if (c.expect.rules.some((r) => !diffOnly.has(r))) expect(o.latenciesMs.length).toBeGreaterThan(0);
    });
  }
});

/** A case's run under ebpf, once however many tests read it (io-uring-read is read by two). */
const ebpfRuns = new Map<string, Promise<CaseOutcome>>();
function underEbpf(name: string): Promise<CaseOutcome> {
  let run = ebpfRuns.get(name);
  if (!run) {
    const c = cases.find((x) => x.name === name);
    if (!c) throw new Error(`no attack case is named ${name}`);
    run = runAttackCase(c, { cwd: work, tracer: 'ebpf' });
    ebpfRuns.set(name, run);
  }
  return run;
}

describe.skipIf(straceMissing !== null || ebpfMissing !== null)('attack suite under ebpf', () => {
  it('detects the SSH-key exfiltration as strace does', { timeout: 120_000 }, async () => {
    const o = await underEbpf('exfil-ssh-key');
    expect(judgeOutcome(o)).toEqual([]);
    expect(o.report?.observation.tracer.kind).toBe('ebpf');
    expectSkillAttribution(o);
  });

  // The evasive mechanisms: ebpf has probes of its own for them (docs/coverage.md); and a chmod
  // mode, which ebpf records as strace does (exec-setid-bit).
  for (const name of [
    'io-uring-read',
    'io-uring-read-benign',
    'compat-syscall',
    'compat-syscall-benign',
    'setuid-helper',
    'setuid-helper-benign',
    // What leaves through the proxy is judged the same whichever tracer names the process.
    'exfil-split-pieces',
    'exfil-split-pieces-benign',
    'exfil-websocket',
    'exfil-websocket-benign',
    'secret-allowed-host',
    'secret-allowed-host-benign',
  ]) {
    it(`${name} under ebpf as under strace`, { timeout: 120_000 }, async () => {
      const o = await underEbpf(name);
      expect(judgeOutcome(o)).toEqual([]);
      expect(o.report?.observation.tracer.kind).toBe('ebpf');
      if (!o.case.expect.malicious) return;
      expectSkillAttribution(o);
    });
  }

  it('sees the path an io_uring opens, which strace cannot', { timeout: 120_000 }, async () => {
    const o = await underEbpf('io-uring-read');
    const canary = o.report?.alerts.filter((a) => a.rule === 'secrets-canary-read') ?? [];
    expect(canary.map((a) => [a.syscall, a.path?.endsWith('/.aws/credentials')])).toEqual([
      ['io_uring:OPENAT', true],
    ]);
  });
});
