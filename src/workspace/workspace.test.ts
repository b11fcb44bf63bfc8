import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { collectDiff } from './diff.js';
import { prepareWorkspace } from './prepare.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ag-ws-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function template(): string {
  const t = tmp();
  mkdirSync(path.join(t, 'src'));
  mkdirSync(path.join(t, 'test'));
  writeFileSync(path.join(t, 'src/a.js'), 'one\ntwo\nthree\n');
  writeFileSync(path.join(t, 'test/a.test.js'), 'test\n');
  writeFileSync(path.join(t, '.gitignore'), 'build/\n');
  mkdirSync(path.join(t, 'build'));
  writeFileSync(path.join(t, 'build/cache.txt'), 'pre-existing ignored file\n');
  symlinkSync('src/a.js', path.join(t, 'link-inside'));
  mkdirSync(path.join(t, 'bin'));
  writeFileSync(path.join(t, 'bin/run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 });
  writeFileSync(path.join(t, 'we"ird\nname é.txt'), 'odd\n');
  // A name that is not UTF-8 (byte 0xff): copied and committed as its bytes.
  writeFileSync(Buffer.concat([Buffer.from(`${t}/latin`), Buffer.from([0xff])]), 'odd\n');
  return t;
}

async function prepared() {
  const run = tmp();
  const ws = await prepareWorkspace({
    runId: 'r1',
    runDir: run,
    template: template(),
    configPath: '/cfg.yaml',
  });
  const diff = () =>
    collectDiff({
      repoDir: ws.repo_dir,
      harnessGitDir: ws.harness_git_dir,
      baselineSha: ws.baseline_sha,
      baselineIgnored: ws.baseline_ignored,
      maxPatchBytes: 1 << 20,
    });
  const sh = (script: string) =>
    execFileSync('sh', ['-c', script], { cwd: ws.repo_dir, env: { PATH: process.env.PATH } });
  return { ws, diff, sh };
}

describe('prepareWorkspace', () => {
  it('copies the template and gives the agent a clean repository at the baseline', async () => {
    const { ws, sh, diff } = await prepared();
    expect(ws.baseline_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(path.join(ws.repo_dir, 'src/a.js'), 'utf8')).toBe('one\ntwo\nthree\n');
    // Executable bits, symlinks and odd names all survive the baseline: the agent sees a clean tree.
    expect(sh('git status --porcelain').toString()).toBe('');
    expect(sh('git ls-files -s bin/run.sh link-inside').toString()).toMatch(/^100755 .*\n120000 /);
    expect(sh('git -c core.quotePath=true ls-files latin*').toString()).toBe('"latin\\377"\n');
    expect(sh('git rev-parse HEAD').toString().trim()).toBe(ws.baseline_sha);
    expect(ws.baseline_ignored).toEqual(['build/cache.txt']);
    expect((await diff()).diff.files).toEqual([]);
  });

  it('leaves out every agentguard output folder in the template, however deep, with what it holds', async () => {
    const t = template();
    for (const dir of ['.agentguard/cache/dependencies/k/tree/node_modules', 'pkg/.agentguard/runs/r/home'])
      mkdirSync(path.join(t, dir), { recursive: true });
    writeFileSync(path.join(t, 'pkg/.agentguard/runs/r/home/.npmrc'), 'canary\n');
    symlinkSync('../packages/b', path.join(t, '.agentguard/cache/dependencies/k/tree/node_modules/b'));
    const ws = await prepareWorkspace({ runId: 'r', runDir: tmp(), template: t, configPath: '/c.yaml' });
    expect(existsSync(path.join(ws.repo_dir, '.agentguard'))).toBe(false);
    expect(existsSync(path.join(ws.repo_dir, 'pkg/.agentguard'))).toBe(false);
  });

  it('refuses a template symlink that escapes the template', async () => {
    const t = template();
    symlinkSync('/etc/passwd', path.join(t, 'src/evil'));
    await expect(
      prepareWorkspace({ runId: 'r', runDir: tmp(), template: t, configPath: '/c.yaml' }),
    ).rejects.toThrow(ConfigError);
  });
});

describe('collectDiff', () => {
  it('sees modified, added, deleted and renamed files with line counts', async () => {
    const { sh, diff } = await prepared();
    sh(
      'printf "one\\nTWO\\nthree\\nfour\\n" > src/a.js && echo new > src/b.js && git mv test/a.test.js test/moved.test.js',
    );
    const { diff: d, patch } = await diff();
    const byPath = Object.fromEntries(d.files.map((f) => [f.path, f]));
    expect(byPath['src/a.js']).toMatchObject({ status: 'modified', added: 2, deleted: 1 });
    expect(byPath['src/b.js']).toMatchObject({ status: 'added', added: 1 });
    expect(byPath['test/moved.test.js']).toMatchObject({ status: 'renamed', old_path: 'test/a.test.js' });
    expect(patch).toContain('+TWO');
    expect(d.patch_truncated).toBe(false);
  });

  it('is unaffected by agent commits, resets, branch switches and a deleted .git', async () => {
    const { sh, diff } = await prepared();
    sh(
      'echo changed >> src/a.js && git -c user.name=a -c user.email=a@b commit -qam x && git checkout -qb other',
    );
    expect((await diff()).diff.files.map((f) => f.path)).toEqual(['src/a.js']);
    sh('rm -rf .git');
    const d = (await diff()).diff;
    expect(d.files.map((f) => f.path)).toEqual(['src/a.js']);
    expect(d.workspace_git_changed).toBe(true);
  });

  it('flags links the agent created that point out of the workspace', async () => {
    const { sh, diff } = await prepared();
    sh('ln -s /etc/passwd src/pw && ln -s ../src/a.js test/ok');
    const files = (await diff()).diff.files;
    expect(files.find((f) => f.path === 'src/pw')?.link).toEqual({ target: '/etc/passwd', escapes: true });
    expect(files.find((f) => f.path === 'test/ok')?.link).toEqual({ target: '../src/a.js', escapes: false });
  });

  it('diffs names that are not UTF-8 like any other, shown with U+FFFD, quoted in the patch', async () => {
    const { ws, diff } = await prepared();
    const at = (...parts: (string | number[])[]) =>
      Buffer.concat([
        Buffer.from(`${ws.repo_dir}/`),
        ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))),
      ]);
    // Two names that differ only in a non-UTF-8 byte, an escaping link and an ignored file so named.
    writeFileSync(at('src/bad', [0xff], '.txt'), 'one\ntwo\n');
    writeFileSync(at('src/bad', [0xfe], '.txt'), 'three\n');
    symlinkSync('/etc/passwd', at('src/pw', [0xff]));
    writeFileSync(at('build/cache', [0xff]), 'ignored\n');
    const { diff: d, patch } = await diff();
    expect(d.skipped_files).toEqual([]);
    expect(d.error).toBeUndefined();
    expect(d.files.map((f) => [f.path, f.status, f.added])).toEqual([
      ['src/bad\uFFFD.txt', 'added', 1],
      ['src/bad\uFFFD.txt', 'added', 2],
      ['src/pw\uFFFD', 'added', 1],
    ]);
    expect(d.files[2]?.link).toEqual({ target: '/etc/passwd', escapes: true });
    expect(d.ignored_files).toEqual(['build/cache\uFFFD']);
    expect(patch).toContain('diff --git "a/src/bad\\377.txt" "b/src/bad\\377.txt"');
    expect(patch).toContain('+++ "b/src/bad\\376.txt"');
  });

  it('lists new ignored files separately and marks a cut patch', async () => {
    const { sh, ws } = await prepared();
    sh('echo x > build/new.txt && seq 1 5000 > src/big.txt');
    const { diff: d } = await collectDiff({
      repoDir: ws.repo_dir,
      harnessGitDir: ws.harness_git_dir,
      baselineSha: ws.baseline_sha,
      baselineIgnored: ws.baseline_ignored,
      maxPatchBytes: 1000,
    });
    expect(d.ignored_files).toEqual(['build/new.txt']);
    expect(d.patch_truncated).toBe(true);
    expect(d.patch_bytes).toBeLessThanOrEqual(1000);
    expect(d.files.find((f) => f.path === 'src/big.txt')?.added).toBe(5000);
  });
});
