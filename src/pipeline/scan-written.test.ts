import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canaryForms } from '../analysis/secrets/detectors.js';
import { BenchmarkConfigSchema, type ResolvedConfig } from '../config/schema.js';
import type { DiffEvidence } from '../evidence/types.js';
import { scanWrittenBytes } from './scan-written.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const TOKEN = '0123456789abcdef01234567';
const cfg = {
  ...BenchmarkConfigSchema.parse({ name: 't', task: { prompt: 'p' }, repo: '.', test_command: ['true'] }),
  test_command: ['true'],
} as unknown as ResolvedConfig;

function run(): { runDir: string; repo: string } {
  const runDir = mkdtempSync(path.join(tmpdir(), 'ag-scan-'));
  dirs.push(runDir);
  const repo = path.join(runDir, 'repo');
  mkdirSync(path.join(runDir, 'evidence'), { recursive: true });
  mkdirSync(repo);
  writeFileSync(
    path.join(runDir, 'evidence/canaries.json'),
    JSON.stringify({ home: '/h', canaries: [{ kind: 'ssh-key', path: '/h/.ssh/id_rsa', token: TOKEN }] }),
  );
  return { runDir, repo };
}

const diff = (over: Partial<DiffEvidence>): DiffEvidence => ({
  baseline_sha: 'x',
  files: [],
  added: 0,
  deleted: 0,
  patch_truncated: false,
  patch_bytes: 0,
  ignored_files: [],
  ignored_files_truncated: false,
  workspace_git_changed: false,
  ...over,
});

describe('canaryForms', () => {
  it('finds the token inside longer base64, hex and reversed text at any alignment', () => {
    const forms = canaryForms(TOKEN);
    for (const lead of ['', 'a', 'ab', 'abc']) {
      const b64 = Buffer.from(`${lead}${TOKEN}!`).toString('base64');
      expect(forms.some((f) => f.encoding === 'base64' && b64.includes(f.text))).toBe(true);
    }
    const hex = Buffer.from(`k=${TOKEN}`).toString('hex');
    expect(forms.some((f) => f.encoding === 'hex' && hex.includes(f.text))).toBe(true);
    expect(
      forms.some((f) => f.encoding === 'reversed' && [...TOKEN].reverse().join('').includes(f.text)),
    ).toBe(true);
  });
});

describe('scanWrittenBytes', () => {
  it('finds canaries and keys behind a NUL byte, in new ignored files, and in a nested repository’s objects', () => {
    const { runDir, repo } = run();
    writeFileSync(path.join(repo, 'blob.bin'), Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(TOKEN)]));
    mkdirSync(path.join(repo, 'build'));
    writeFileSync(path.join(repo, 'build/out.txt'), Buffer.from(`x${TOKEN}`).toString('base64'));
    const nested = path.join(repo, 'vendor/lib');
    mkdirSync(nested, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@b', ...args], { cwd: nested });
    git('init', '-q');
    writeFileSync(path.join(nested, 'key.txt'), `AKIA${'Z'.repeat(16)}\n`);
    git('add', '.');
    git('commit', '-qm', 'x');
    rmSync(path.join(nested, 'key.txt'));
    const scan = scanWrittenBytes(
      cfg,
      runDir,
      repo,
      diff({
        files: [{ path: 'blob.bin', status: 'added', added: 0, deleted: 0, binary: true }],
        ignored_files: ['build/out.txt'],
        nested_repositories: ['vendor/lib'],
      }),
    );
    const found = scan.findings.map((f) => `${f.path} ${f.detector} ${f.encoding ?? ''}`.trim());
    expect(found).toContain('blob.bin canary-ssh-key exact');
    expect(found).toContain('build/out.txt canary-ssh-key base64');
    expect(found.some((f) => f.startsWith('vendor/lib/.git/objects/') && f.includes('aws-access-key'))).toBe(
      true,
    );
    expect(scan.unscanned).toEqual([]);
  });

  it('finds nothing in a binary fixture with no secret', () => {
    const { runDir, repo } = run();
    writeFileSync(path.join(repo, 'fixture.bin'), Buffer.from([0, 255, 1, 2, 3, 0, 65, 66]));
    const scan = scanWrittenBytes(
      cfg,
      runDir,
      repo,
      diff({ files: [{ path: 'fixture.bin', status: 'added', added: 0, deleted: 0, binary: true }] }),
    );
    expect(scan).toEqual({ scanned: 1, findings: [], unscanned: [] });
  });
});
