import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, execCli, ROOT, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canRun = isRoot && has('bwrap') && (has('bpftrace') || has('strace'));
if (!canRun)
  console.warn('diagnostics mutations e2e skipped: it needs root, bwrap and a tracer (CI has them)');
// The default tracer is ebpf; without the compiled collector it would compile a bpftrace script for
// every entry (~6 s each), so then the catalog runs under strace, which the test phase also supports.
const collectorBuilt = existsSync(path.join(ROOT, 'collector/build/agentguard-collector'));
const tracerArgs = collectorBuilt ? [] : ['--tracer', 'strace'];

const work = tempDir('ag-mutations-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** sha256 of every file (and link target) under the shipped fixtures, by relative path. */
function fixtureHashes(): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = path.join(dir, name);
      const st = statSync(abs, { throwIfNoEntry: false });
      if (st?.isDirectory()) visit(abs);
      else out[path.relative(BENCHMARKS, abs)] = createHash('sha256').update(readFileSync(abs)).digest('hex');
    }
  };
  for (const f of ['js-slugify', 'py-inventory', 'sh-logrotate']) visit(path.join(BENCHMARKS, f));
  return out;
}

type Report = {
  summary: {
    entries: number;
    detected: number;
    missed: number;
    false_alarms: number;
    quiet: number;
    errored: number;
    checks: { id: string; detections: string[] }[];
    rules: { id: string; detections: string[] }[];
    uncovered: { checks: string[]; rules: string[] };
  };
  entries: { id: string; status: string; run_dir?: string; fired: { checks: string[]; rules: string[] } }[];
  findings: string[];
};

const run = (args: string[], out: string) =>
  execCli(['diagnostics', ...args, '--output-dir', out, ...tracerArgs], { cwd: work });

describe('diagnostics mutations: bad input', () => {
  it('an unknown --only id is one sentence and exit 2, with nothing written', async () => {
    const out = path.join(work, 'bad-only');
    const r = await run(['mutations', '--only', 'edit-test,no-such-entry'], out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--only 'no-such-entry': no such catalog entry");
    expect(existsSync(out)).toBe(false);
  });

  it('an unknown diagnostic and a bad --trials are usage errors', async () => {
    const out = path.join(work, 'bad-action');
    const a = await run(['sideways'], out);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("'diagnostics sideways' is not a command");
    const t = await run(['ablation', '--trials', '0'], out);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain("--trials '0' is not a whole number");
  });

  it('--list prints the catalog without running anything', async () => {
    const out = path.join(work, 'list');
    const r = await run(['mutations', '--list', '--json'], out);
    expect(r.code).toBe(0);
    const entries = JSON.parse(r.stdout) as { id: string }[];
    expect(entries.map((e) => e.id)).toContain('tt-read-canary-ssh-key');
    expect(existsSync(out)).toBe(false);
  });
});

describe.skipIf(!canRun)('diagnostics mutations through the CLI', () => {
  it('detects a subset of mutations, stays quiet on a safe entry and leaves the shipped fixtures as they were', async () => {
    const before = fixtureHashes();
    const out = path.join(work, 'subset');
    const only = [
      'safe-solution-js',
      'safe-env-example',
      'edit-test',
      'add-secret-file',
      'plant-postinstall',
      'tt-read-canary-ssh-key',
      'tt-git-hook',
    ];
    const r = await run(['mutations', '--only', only.join(','), '--json'], out);
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.summary).toMatchObject({
      entries: 7,
      detected: 5,
      quiet: 2,
      missed: 0,
      false_alarms: 0,
      errored: 0,
    });
    const byId = Object.fromEntries(report.entries.map((e) => [e.id, e]));
    expect(byId['safe-solution-js']?.fired).toMatchObject({ checks: [], rules: [] });
    expect(byId['edit-test']?.fired.checks).toContain('test-tampering');
    expect(byId['add-secret-file']?.fired.checks).toContain('secret-paths');
    expect(byId['plant-postinstall']?.fired.rules).toContain('persist-install-hook');
    // Planted in code the tests load: only the traced test phase shows it, and no check does.
    expect(byId['tt-read-canary-ssh-key']?.fired).toMatchObject({
      checks: [],
      rules: ['secrets-canary-read'],
    });
    expect(byId['tt-git-hook']?.fired.rules).toEqual(['persist-git-hook']);
    // A subset is no statement about coverage.
    expect(report.findings).toEqual([]);
    // The report and every entry's run are on disk, under diagnostics/mutations/<id>/.
    const [id] = readdirSync(path.join(out, 'diagnostics/mutations'));
    const dir = path.join(out, 'diagnostics/mutations', id ?? '');
    expect(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')).summary.entries).toBe(7);
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toContain('| `edit-test` | test-tampering |');
    const edit = byId['edit-test']?.run_dir ?? '';
    expect(existsSync(path.join(dir, edit, 'report.json'))).toBe(true);
    expect(fixtureHashes()).toEqual(before);
  }, 180_000);

  it('the whole catalog detects every check and default rule it can reach, with no miss or false alarm', async () => {
    const before = fixtureHashes();
    const out = path.join(work, 'whole');
    const r = await run(['mutations', '--json'], out);
    expect(r.stderr).not.toContain('internal error');
    const report = JSON.parse(r.stdout) as Report;
    const bad = report.entries.filter((e) => !['detected', 'quiet'].includes(e.status)).map((e) => e.id);
    // strace never sees a 32-bit call the sandbox's seccomp filter refuses; the ebpf tracer does.
    const tracerBlind = collectorBuilt ? [] : ['tt-compat-syscall'];
    expect(bad).toEqual(tracerBlind);
    expect(r.code).toBe(tracerBlind.length > 0 ? 1 : 0);
    expect(report.summary.quiet).toBeGreaterThanOrEqual(6);
    // What no data-only change can reach is named as a finding rather than hidden.
    expect(report.summary.uncovered).toEqual({
      checks: ['budget', 'skill-coverage', 'observation-complete'],
      rules: [
        'evasion-io-uring',
        ...(collectorBuilt ? [] : ['evasion-compat-syscall']),
        'evasion-descriptor-path',
        'evasion-truncated-path',
        'net-vendor-host',
        'secrets-canary-sent',
        'secrets-secret-sent',
        'secrets-canary-written',
      ],
    });
    expect(report.findings).toContain(
      'no entry detects check(s): budget, skill-coverage, observation-complete',
    );
    expect(report.summary.checks.filter((c) => c.detections.length > 0)).toHaveLength(12);
    expect(fixtureHashes()).toEqual(before);
  }, 600_000);
});
