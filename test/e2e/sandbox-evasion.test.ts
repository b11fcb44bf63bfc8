import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, ownStderr, scriptTask, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canSandbox = isRoot && has('bwrap') && has('git');
if (!canSandbox)
  console.warn('sandbox evasion e2e tests skipped: they need root, bwrap and git (CI runs them)');

const work = tempDir('ag-evasion-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Written so a linter or scanner reading this file does not see a key.
const KEY_HEADER = `-----BEGIN RSA ${'PRIVATE'} KEY-----`;
const AWS_KEY = `${'AKIA'}Q3EGRV7XK2LMN4PZ`;

/** A task folder with its config; runs started from it keep their output in `<task>/.agentguard`. */
const task = (name: string, script: string, extra: string[] = []) => scriptTask(work, name, script, extra);

async function run(dir: string) {
  const r = await execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', 'off', '--json'], {
    cwd: dir,
  });
  return { ...r, report: r.stdout.startsWith('{') ? JSON.parse(r.stdout) : null };
}

type Check = { id: string; passed: boolean; message: string };
const check = (report: { checks: Check[] }, id: string) => report.checks.find((c) => c.id === id);

describe.skipIf(!canSandbox)('what the sandboxed agent cannot see or do', () => {
  it('cannot read its own or earlier runs under the output folder in the config folder, nor /etc/shadow', async () => {
    const dir = path.join(work, 'peek');
    const out = path.join(dir, '.agentguard');
    const script = [
      `OUT=${JSON.stringify(out)}`,
      'cat "$OUT/runs/$AGENTGUARD_RUN_ID/home/.ssh/id_rsa" > leak.txt 2>/dev/null',
      'cat "$OUT"/runs/*/evidence/canaries.json "$OUT"/runs/*/home/.ssh/id_rsa >> leak.txt 2>/dev/null',
      'find "$OUT" -type f > seen.txt 2>/dev/null',
      'wc -c < /etc/shadow > shadow.txt',
      'true',
    ].join('\n');
    task('peek', script);
    const first = await run(dir);
    expect(first.report?.result).toBeDefined();
    const second = await run(dir);
    const { report } = second;
    const repo = path.join(report.run_dir, 'repo');
    expect(report.run_dir.startsWith(out)).toBe(true);
    expect(readFileSync(path.join(repo, 'leak.txt'), 'utf8')).toBe('');
    // Only this run's task prompt (and nothing of its evidence, HOME or the first run) is there.
    const seen = readFileSync(path.join(repo, 'seen.txt'), 'utf8').trim().split('\n');
    expect(seen.filter((f) => !f.startsWith(`${repo}/`))).toEqual([
      path.join(report.run_dir, 'task/prompt.md'),
    ]);
    expect(readFileSync(path.join(repo, 'shadow.txt'), 'utf8').trim()).toBe('0');
    const facts = report.observation.sandbox.facts;
    expect(facts.hidden).toContain(`${out} (empty folder)`);
    expect(facts.hidden).toContain('/etc/shadow (empty file)');
    expect(facts.seccomp).toContain('io_uring, non-native syscalls, the kernel keyring');
  }, 120_000);

  it('a nested repository with nothing committed still ends in a verdict, reports and a history row', async () => {
    const dir = task('nested-empty', 'mkdir sub && cd sub && git init -q && echo hi > notes.txt\n');
    const r = await run(dir);
    expect(ownStderr(r.stderr)).toBe('');
    expect(r.code).toBe(1);
    expect(r.report.result).toBe('FAIL');
    expect(r.report.diff.changed_files).toBe(1);
    expect(check(r.report, 'workspace-integrity')).toMatchObject({ passed: false });
    expect(check(r.report, 'workspace-integrity')?.message).toContain('nested git repository (sub)');
    const list = await execCli(['reports', 'list', '--json'], { cwd: dir });
    expect(JSON.parse(list.stdout).map((row: { run_id: string }) => row.run_id)).toContain(r.report.run_id);
  }, 120_000);

  it('a file named with a byte that is not UTF-8 is diffed and judged like any other', async () => {
    // printf writes the raw byte 0xff into the names; a walk reading names as text would lose them.
    const script = [
      "printf 'x\\n' > \"$(printf 'notes\\377.txt')\"",
      "mkdir -p keys && printf 'k\\n' > \"keys/$(printf 'id\\377.pem')\"",
    ].join('\n');
    const dir = task('latin1-names', script, ["forbidden_paths: ['**/*.pem']"]);
    const r = await run(dir);
    expect(r.code, r.stderr).toBe(1);
    expect(check(r.report, 'workspace-integrity')).toMatchObject({ passed: true });
    expect(check(r.report, 'forbidden-paths')?.message).toContain('keys/id\uFFFD.pem');
    const files = r.report.diff.files.map((f: { path: string }) => f.path).sort();
    expect(files).toEqual(['keys/id\uFFFD.pem', 'notes\uFFFD.txt']);
    const patch = readFileSync(path.join(r.report.run_dir, 'evidence/diff.patch'), 'utf8');
    expect(patch).toContain('+++ "b/notes\\377.txt"');
    expect(patch).toContain('+++ "b/keys/id\\377.pem"');
  }, 120_000);

  it('a committed server.pem in a nested repository fails forbidden_paths and secret-content', async () => {
    const script = [
      'mkdir -p vendor/lib && cd vendor/lib && git init -q',
      `printf '%s\\nMIIEowIBAAKCAQEA\\n' '${KEY_HEADER}' > server.pem`,
      `echo 'aws_access_key_id = ${AWS_KEY}' > settings.ini`,
      'git add . && git commit -qm vendor',
    ].join('\n');
    const dir = task('nested-secret', script, [
      "forbidden_paths: ['**/*.pem']",
      'secret_presets: [private-key, aws-access-key]',
    ]);
    const r = await run(dir);
    expect(r.code).toBe(1);
    expect(r.report.result).toBe('FAIL');
    expect(check(r.report, 'forbidden-paths')).toMatchObject({ passed: false });
    expect(check(r.report, 'forbidden-paths')?.message).toContain('vendor/lib/server.pem');
    expect(check(r.report, 'secret-content')).toMatchObject({ passed: false });
    expect(check(r.report, 'secret-content')?.message).toMatch(/private-key/);
    expect(check(r.report, 'secret-content')?.message).toMatch(/aws-access-key/);
  }, 120_000);
});
