import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectDiff } from './diff.js';
import { prepareWorkspace } from './prepare.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ag-nested-'));
  dirs.push(d);
  return d;
}

const KEY = '-----BEGIN RSA PRIVATE KEY-----';

async function workspace() {
  const t = tmp();
  writeFileSync(path.join(t, 'a.txt'), 'a\n');
  writeFileSync(path.join(t, '.gitignore'), 'build/\n');
  const ws = await prepareWorkspace({ runId: 'r', runDir: tmp(), template: t, configPath: '/c.yaml' });
  const diff = (gitTimeoutMs?: number) =>
    collectDiff({
      repoDir: ws.repo_dir,
      harnessGitDir: ws.harness_git_dir,
      baselineSha: ws.baseline_sha,
      baselineIgnored: ws.baseline_ignored,
      maxPatchBytes: 1 << 20,
      ...(gitTimeoutMs ? { gitTimeoutMs } : {}),
    });
  // The agent's own git: no harness environment, a plain identity.
  const sh = (script: string) =>
    execFileSync('sh', ['-c', script], {
      cwd: ws.repo_dir,
      env: { PATH: process.env.PATH, HOME: ws.repo_dir, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  return { ws, diff, sh };
}

const GIT_ID = '-c user.name=a -c user.email=a@b';

describe('collectDiff with nested repositories', () => {
  it('lists the files of a nested repository with nothing committed, and names the repository', async () => {
    const { sh, diff } = await workspace();
    sh('mkdir sub && cd sub && git init -q && echo hello > notes.txt');
    const { diff: d, patch } = await diff();
    expect(d.error).toBeUndefined();
    expect(d.files.map((f) => f.path)).toEqual(['sub/notes.txt']);
    expect(d.nested_repositories).toEqual(['sub']);
    expect(patch).toContain('+hello');
  });

  it('shows a committed nested repository file by file, with its content, not as a Subproject commit', async () => {
    const { sh, diff } = await workspace();
    sh(
      `mkdir -p vendor/lib && cd vendor/lib && git init -q && printf '%s\\n' '${KEY}' MIIE > server.pem && ` +
        `echo 'AWS=AKIAABCDEFGHIJKLMNOP' > creds.env && git add . && git ${GIT_ID} commit -qm c`,
    );
    const { diff: d, patch } = await diff();
    expect(d.files.map((f) => [f.path, f.status])).toEqual([
      ['vendor/lib/creds.env', 'added'],
      ['vendor/lib/server.pem', 'added'],
    ]);
    expect(patch).not.toContain('Subproject commit');
    expect(patch).toContain(`+${KEY}`);
    expect(patch).toContain('+AWS=AKIAABCDEFGHIJKLMNOP');
    expect(d.nested_repositories).toEqual(['vendor/lib']);
  });

  it('survives gitfiles pointing elsewhere, broken .git folders, fifos, links and odd names', async () => {
    const { sh, diff } = await workspace();
    sh(
      [
        "mkdir g1 && echo 'gitdir: /nonexistent/x' > g1/.git && echo one > g1/f",
        'mkdir -p g2/.git && echo junk > g2/.git/HEAD && echo two > g2/f',
        'mkdir g3 && ln -s /etc g3/.git && echo three > g3/f',
        'mkfifo pipe',
        'ln -s /etc/passwd g1/pw',
        `mkdir n && cd n && git init -q && printf 'x' > "$(printf 'new\\nline.txt')"`,
      ].join(' && '),
    );
    const { diff: d } = await diff();
    expect(d.error).toBeUndefined();
    expect(d.files.map((f) => f.path)).toEqual(['g1/f', 'g1/pw', 'g2/f', 'g3/f', 'n/new\nline.txt']);
    expect(d.files.find((f) => f.path === 'g1/pw')?.link).toEqual({ target: '/etc/passwd', escapes: true });
    expect(d.nested_repositories).toEqual(['g1', 'g2', 'g3', 'n']);
    expect(d.skipped_files).toEqual([{ path: 'pipe', reason: 'not a regular file or symlink' }]);
  });

  it('names a nested repository hidden in an ignored folder without listing its files as changes', async () => {
    const { sh, diff } = await workspace();
    sh('mkdir -p build/dep && cd build/dep && git init -q && echo z > z');
    const { diff: d } = await diff();
    expect(d.files).toEqual([]);
    expect(d.nested_repositories).toEqual(['build/dep']);
  });

  it('ignores a .gitattributes that would turn added content into "Binary files differ"', async () => {
    const { sh, diff } = await workspace();
    sh(`echo '*.pem -diff' > .gitattributes && echo '${KEY}' > server.pem`);
    const { diff: d, patch } = await diff();
    expect(d.files.find((f) => f.path === 'server.pem')).toMatchObject({ binary: false, added: 1 });
    expect(patch).toContain(`+${KEY}`);
  });

  it('returns an error diff instead of hanging or throwing when git cannot read the workspace', async () => {
    const { sh, diff } = await workspace();
    // git opens every .gitignore it meets; a fifo blocks it forever.
    sh('mkdir d && mkfifo d/.gitignore && echo x > d/x');
    const t0 = Date.now();
    const { diff: d, patch } = await diff(1500);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(d.error).toMatch(/the workspace diff could not be taken: git ls-files did not finish within 2 s/);
    expect(d.files).toEqual([]);
    expect(d.patch_truncated).toBe(true);
    expect(patch).toBe('');
  });

  it('reports a file too large to diff instead of reading it into memory', async () => {
    const { ws, sh } = await workspace();
    sh('head -c 4096 /dev/zero > big.bin && echo small > small.txt');
    const { diff: d } = await collectDiff({
      repoDir: ws.repo_dir,
      harnessGitDir: ws.harness_git_dir,
      baselineSha: ws.baseline_sha,
      baselineIgnored: ws.baseline_ignored,
      maxPatchBytes: 1 << 20,
      maxFileBytes: 1024,
    });
    expect(d.files.map((f) => f.path)).toEqual(['small.txt']);
    expect(d.skipped_files).toEqual([{ path: 'big.bin', reason: 'larger than 1024 bytes' }]);
  });

  it('returns an error diff when the harness git directory is gone', async () => {
    const { ws, diff } = await workspace();
    rmSync(ws.harness_git_dir, { recursive: true, force: true });
    const { diff: d } = await diff();
    expect(d.error).toMatch(/could not be taken/);
  });
});
