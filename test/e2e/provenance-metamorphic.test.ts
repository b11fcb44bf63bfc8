/**
 * Metamorphic properties of `trace replay`, over a real run of every shipped benchmark (the
 * mock-out-of-scope agent: its only failure is the scope check) and real attack runs (exfil-ssh-key, dns-leak):
 * - moving a run folder to another host path under another name keeps the verdict;
 * - reversing the evidence records whose order means nothing (commands, changed files and their
 *   patch sections, canaries, network records: the analysis looks them up by id, path or time),
 *   then sealing the folder again with the judgement it had, keeps the verdict, checks and alerts;
 * - removing the evidence of its one failing check, then sealing the folder again with the
 *   judgement it had (a consistent forgery of the evidence), changes the replayed verdict, and
 *   replay names that check; removing the syscall events behind an alert removes that alert.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analysis/analyze.js';
import { readBundle } from '../../src/pipeline/read-bundle.js';
import { rulesOfRun } from '../../src/pipeline/rules.js';
import { sealRun } from '../../src/provenance/seal-run.js';
import { BENCHMARKS, execCli, ownStderr, tempDir } from './exec-cli.js';

const work = tempDir('ag-metamorphic-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const benchmarks = readdirSync(BENCHMARKS).filter((d) => existsSync(path.join(BENCHMARKS, d, 'config.yaml')));

type Stored = { run_id: string; run_dir: string; result: string; failed_checks: string[] };
type Equivalence = {
  equivalent: boolean;
  verdict: { stored: string; replayed: string };
  checks: { id: string; stored: boolean | null; replayed: boolean | null }[];
  alerts: { only_stored: { rule: string }[]; only_replayed: { rule: string }[] };
};
const runs = new Map<string, Stored>();

const replay = async (dir: string): Promise<{ code: number | null; e: Equivalence }> => {
  const r = await execCli(['trace', 'replay', dir, '--json'], { cwd: work });
  expect(ownStderr(r.stderr)).toBe('');
  return { code: r.code, e: JSON.parse(r.stdout) };
};

/** The run folder copied under `rel` of a second root, as if on another host. */
function elsewhere(runDir: string, rel: string): string {
  const dest = path.join(work, 'other-host', 'mnt', rel);
  mkdirSync(path.dirname(dest), { recursive: true });
  cpSync(runDir, dest, { recursive: true, verbatimSymlinks: true });
  return dest;
}

/** Seal a copy again with the judgement the untouched copy replays to: only its evidence differs. */
function resealWithStoredJudgement(original: string, forged: string): void {
  const bundle = readBundle(original);
  const judged = analyze(bundle, rulesOfRun(bundle.run_dir, bundle.config));
  sealRun(forged, judged, new Date());
}

const reverseLines = (text: string): string => {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.length === 0 ? text : `${lines.reverse().join('\n')}\n`;
};

/**
 * Reverse, in place, every evidence list whose order carries no meaning for the judgement: the
 * command log (checks find a command by id or look at all of them), diff.json's file lists and
 * diff.patch's per-file sections (judged per file), the canaries (a set of paths and tokens), and
 * the network records (the rules sort them by time; only ties keep file order, and a network alert
 * names no event). Syscalls stay in order: the rules follow processes, cwds and fds through them.
 * Returns the lists it actually reordered (two or more records), so a test can insist on some.
 */
function reverseIndependentRecords(runDir: string): string[] {
  const reordered: string[] = [];
  const ev = (f: string) => path.join(runDir, 'evidence', f);
  const rewrite = (file: string, what: string, change: (text: string) => string) => {
    if (!existsSync(ev(file))) return;
    const before = readFileSync(ev(file), 'utf8');
    const after = change(before);
    if (after !== before) reordered.push(what);
    writeFileSync(ev(file), after);
  };
  const reverseArrays = (keys: string[]) => (text: string) => {
    const json = JSON.parse(text) as Record<string, unknown>;
    for (const k of keys) if (Array.isArray(json[k])) json[k] = [...(json[k] as unknown[])].reverse();
    return `${JSON.stringify(json, null, 2)}\n`;
  };
  rewrite('commands.jsonl', 'commands', reverseLines);
  rewrite('network.jsonl', 'network', reverseLines);
  rewrite(
    'diff.json',
    'diff files',
    reverseArrays(['files', 'ignored_files', 'nested_repositories', 'skipped_files']),
  );
  rewrite('canaries.json', 'canaries', reverseArrays(['canaries']));
  rewrite('skills.json', 'skills', reverseArrays(['files']));
  rewrite('diff.patch', 'patch sections', (text) => {
    // Whatever precedes the first section (nothing, in git's output) stays first.
    const parts = text.split(/(?=^diff --git )/m);
    const head = parts[0]?.startsWith('diff --git ') ? '' : (parts.shift() ?? '');
    return head + parts.reverse().join('');
  });
  return reordered;
}

beforeAll(async () => {
  for (const name of benchmarks) {
    const r = await execCli(
      [
        'run',
        path.join(BENCHMARKS, name, 'config.yaml'),
        '--agent',
        'mock-out-of-scope',
        '--tracer',
        'off',
        '--json',
      ],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(1);
    runs.set(name, JSON.parse(r.stdout));
  }
}, 180_000);

describe.each(benchmarks)('%s (mock-out-of-scope)', (name) => {
  it('moved to another path under another name: verifies and replays to the same verdict', async () => {
    const run = runs.get(name) as Stored;
    expect(run.failed_checks).toEqual(['scope']);
    const moved = elsewhere(run.run_dir, `${name}/renamed-${run.run_id.split('').reverse().join('')}`);
    expect((await execCli(['trace', 'verify', moved], { cwd: work })).code).toBe(0);
    const { code, e } = await replay(moved);
    expect(code).toBe(0);
    expect(e).toMatchObject({ equivalent: true, verdict: { stored: 'FAIL', replayed: 'FAIL' }, checks: [] });
  });

  it('with its independent records reversed (resealed consistently): verifies and replays to the same verdict', async () => {
    const run = runs.get(name) as Stored;
    const permuted = elsewhere(run.run_dir, `${name}/reordered`);
    const reordered = reverseIndependentRecords(permuted);
    expect(reordered).toEqual(
      expect.arrayContaining(['commands', 'diff files', 'patch sections', 'canaries']),
    );
    expect((await execCli(['trace', 'verify', permuted], { cwd: work })).code).toBe(1);
    resealWithStoredJudgement(run.run_dir, permuted);
    expect((await execCli(['trace', 'verify', permuted], { cwd: work })).code).toBe(0);
    const { code, e } = await replay(permuted);
    expect(code).toBe(0);
    expect(e).toMatchObject({
      equivalent: true,
      verdict: { stored: 'FAIL', replayed: 'FAIL' },
      checks: [],
      alerts: { only_stored: [], only_replayed: [] },
    });
  });

  it('without the evidence of its failing check (resealed consistently): replay names the check and the verdict changes', async () => {
    const run = runs.get(name) as Stored;
    const forged = elsewhere(run.run_dir, `${name}/forged`);
    const diffFile = path.join(forged, 'evidence', 'diff.json');
    const diff = JSON.parse(readFileSync(diffFile, 'utf8')) as {
      files: { path: string; added: number; deleted: number }[];
      added: number;
      deleted: number;
    };
    const outside = diff.files.filter((f) => f.path.startsWith('agent-notes/'));
    expect(outside.length).toBeGreaterThan(0);
    diff.files = diff.files.filter((f) => !outside.includes(f));
    for (const f of outside) {
      diff.added -= f.added;
      diff.deleted -= f.deleted;
    }
    writeFileSync(diffFile, `${JSON.stringify(diff, null, 2)}\n`);
    const patchFile = path.join(forged, 'evidence', 'diff.patch');
    const hunks = readFileSync(patchFile, 'utf8').split(/(?=^diff --git )/m);
    writeFileSync(patchFile, hunks.filter((h) => !h.startsWith('diff --git a/agent-notes/')).join(''));
    // Unsealed, the edit is tampering and replay refuses it.
    expect((await execCli(['trace', 'verify', forged], { cwd: work })).code).toBe(1);
    resealWithStoredJudgement(run.run_dir, forged);
    expect((await execCli(['trace', 'verify', forged], { cwd: work })).code).toBe(0);
    const { code, e } = await replay(forged);
    expect(code).toBe(1);
    expect(e.equivalent).toBe(false);
    expect(e.checks).toEqual([{ id: 'scope', stored: false, replayed: true }]);
    expect(e.verdict).toEqual({ stored: 'FAIL', replayed: 'PASS' });
  });
});

describe('an attack run (exfil-ssh-key, strace)', () => {
  it('without the syscall events behind its canary alert (resealed consistently): replay reports that alert gone', async () => {
    const config = path.join(BENCHMARKS, 'attacks', 'exfil-ssh-key', 'config.yaml');
    const r = await execCli(['run', config, '--tracer', 'strace', '--sandbox', 'bwrap', '--json'], {
      cwd: work,
    });
    expect(r.code, r.stderr).toBe(1);
    const run = JSON.parse(r.stdout) as Stored & { alerts: { rule: string; path?: string }[] };
    const canary = run.alerts.find((a) => a.rule === 'secrets-canary-read');
    expect(canary?.path).toBeDefined();
    // Moving it keeps every alert.
    const moved = elsewhere(run.run_dir, 'attack/moved');
    const same = await replay(moved);
    expect(same.code).toBe(0);
    expect(same.e.alerts).toEqual({ only_stored: [], only_replayed: [] });
    // So does reversing its independent records.
    const permuted = elsewhere(run.run_dir, 'attack/reordered');
    expect(reverseIndependentRecords(permuted)).toEqual(expect.arrayContaining(['commands', 'canaries']));
    resealWithStoredJudgement(run.run_dir, permuted);
    const reordered = await replay(permuted);
    expect(reordered.code).toBe(0);
    expect(reordered.e).toMatchObject({
      equivalent: true,
      checks: [],
      alerts: { only_stored: [], only_replayed: [] },
    });

    const forged = elsewhere(run.run_dir, 'attack/forged');
    const syscalls = path.join(forged, 'evidence', 'syscalls.jsonl');
    const lines = readFileSync(syscalls, 'utf8').split('\n');
    const kept = lines.filter((l) => !(l.includes('"open"') && l.includes('.ssh/id_rsa')));
    expect(kept.length).toBeLessThan(lines.length);
    writeFileSync(syscalls, kept.join('\n'));
    resealWithStoredJudgement(run.run_dir, forged);
    const { code, e } = await replay(forged);
    expect(code).toBe(1);
    expect(e.equivalent).toBe(false);
    expect(e.alerts.only_stored.map((a) => a.rule)).toContain('secrets-canary-read');
    expect(e.alerts.only_replayed).toEqual([]);
  }, 120_000);
});

describe('an attack run with several network records (dns-leak, strace)', () => {
  it('with its independent records reversed, network ones included (resealed consistently): the same verdict and alerts', async () => {
    const config = path.join(BENCHMARKS, 'attacks', 'dns-leak', 'config.yaml');
    const r = await execCli(['run', config, '--tracer', 'strace', '--sandbox', 'bwrap', '--json'], {
      cwd: work,
    });
    expect(r.code, r.stderr).toBe(1);
    const run = JSON.parse(r.stdout) as Stored & { alerts: { rule: string }[] };
    // An alert raised from network records, not syscalls.
    expect(run.alerts.map((a) => a.rule)).toContain('net-dns-tunnel');
    const permuted = elsewhere(run.run_dir, 'dns-leak/reordered');
    expect(reverseIndependentRecords(permuted)).toEqual(expect.arrayContaining(['commands', 'network']));
    resealWithStoredJudgement(run.run_dir, permuted);
    expect((await execCli(['trace', 'verify', permuted], { cwd: work })).code).toBe(0);
    const { code, e } = await replay(permuted);
    expect(code).toBe(0);
    expect(e).toMatchObject({
      equivalent: true,
      verdict: { stored: 'FAIL', replayed: 'FAIL' },
      checks: [],
      alerts: { only_stored: [], only_replayed: [] },
    });
  }, 120_000);
});
