import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectDiff } from './diff.js';
import { buildGradingCopy } from './grading-copy.js';
import { prepareWorkspace } from './prepare.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ag-grade-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A task with a source file, a test, a grader-only answer and a dependency setup "installed" (ignored). */
function template(): string {
  const t = tmp();
  const put = (rel: string, text: string, mode = 0o644) => {
    mkdirSync(path.dirname(path.join(t, rel)), { recursive: true });
    writeFileSync(path.join(t, rel), text, { mode });
  };
  put('src/a.js', 'broken\n');
  put('test/a.test.js', 'original test\n');
  put('hidden/expected.txt', 'the answer\n');
  put('.gitignore', 'node_modules/\n');
  put('node_modules/dep/index.js', 'module.exports = 1;\n');
  put('node_modules/dep/bin.sh', '#!/bin/sh\n', 0o755);
  put('.gitattributes', '* text eol=crlf\n');
  symlinkSync('dep/index.js', path.join(t, 'node_modules/main.js'));
  return t;
}

async function setup() {
  const runDir = tmp();
  const ws = await prepareWorkspace({
    runId: 'r',
    runDir,
    template: template(),
    configPath: '/c.yaml',
    graderOnly: (rel) => rel.startsWith('hidden/'),
  });
  const sh = (script: string) =>
    execFileSync('sh', ['-c', script], { cwd: ws.repo_dir, env: { PATH: process.env.PATH } });
  const diff = () =>
    collectDiff({
      repoDir: ws.repo_dir,
      harnessGitDir: ws.harness_git_dir,
      baselineSha: ws.baseline_sha,
      baselineIgnored: ws.baseline_ignored,
      baselineIgnoredHashes: ws.ignored_hashes,
      maxPatchBytes: 1 << 20,
    });
  const grade = () =>
    buildGradingCopy({
      harnessGitDir: ws.harness_git_dir,
      baselineSha: ws.baseline_sha,
      dest: path.join(runDir, 'grading'),
      agentRepo: ws.repo_dir,
      applies: (rel) => rel.startsWith('src/'),
      graderDir: ws.grader_dir,
      ignored: ws.ignored_hashes,
    });
  return { ws, runDir, sh, diff, grade, copy: path.join(runDir, 'grading') };
}

describe('grader-only files', () => {
  it('are neither in the workspace nor in any object of its git', async () => {
    const { ws, sh } = await setup();
    expect(existsSync(path.join(ws.repo_dir, 'hidden'))).toBe(false);
    const show = spawnSync('git', ['show', 'HEAD:hidden/expected.txt'], { cwd: ws.repo_dir });
    expect(show.status).not.toBe(0);
    // No object anywhere in either database holds the answer.
    for (const gitDir of [path.join(ws.repo_dir, '.git'), ws.harness_git_dir]) {
      const all = sh(`git --git-dir='${gitDir}' cat-file --batch-all-objects --batch`).toString();
      expect(all).not.toContain('the answer');
    }
    expect(readFileSync(path.join(ws.grader_dir, 'hidden/expected.txt'), 'utf8')).toBe('the answer\n');
  });
});

describe('buildGradingCopy', () => {
  it('takes only the allowed changes from the diff commit, the original tests and the grader files', async () => {
    const { sh, diff, grade, copy } = await setup();
    sh(
      'echo fixed > src/a.js && echo "it passes" > test/a.test.js && echo x > outside.txt && rm .gitattributes',
    );
    expect((await diff()).diff.error).toBeUndefined();
    // After the diff, the agent's folder changes again: the copy is made from the diff's commit.
    sh('echo "changed after the diff" > src/a.js');
    const made = await grade();
    expect(made.applied).toEqual(['src/a.js']);
    expect(made.not_applied).toEqual(['.gitattributes', 'outside.txt', 'test/a.test.js']);
    expect(readFileSync(path.join(copy, 'src/a.js'), 'utf8')).toBe('fixed\n');
    expect(readFileSync(path.join(copy, 'test/a.test.js'), 'utf8')).toBe('original test\n');
    expect(existsSync(path.join(copy, 'outside.txt'))).toBe(false);
    // Written byte for byte: the template's eol=crlf attribute converts nothing.
    expect(readFileSync(path.join(copy, '.gitattributes'), 'utf8')).toBe('* text eol=crlf\n');
    expect(readFileSync(path.join(copy, 'hidden/expected.txt'), 'utf8')).toBe('the answer\n');
    expect(made.grader_files).toBe(1);
  });

  it('carries installed dependencies over unchanged and leaves out what the agent changed or added', async () => {
    const { sh, diff, grade, copy } = await setup();
    sh('echo "module.exports = 2;" > node_modules/dep/index.js && echo evil > node_modules/dep/extra.pth');
    const taken = (await diff()).diff;
    expect(taken.ignored_changed).toEqual([{ path: 'node_modules/dep/index.js', status: 'modified' }]);
    const made = await grade();
    expect(made.dependencies_changed).toEqual(['node_modules/dep/index.js']);
    expect(made.dependencies).toBe(2);
    expect(existsSync(path.join(copy, 'node_modules/dep/index.js'))).toBe(false);
    expect(existsSync(path.join(copy, 'node_modules/dep/extra.pth'))).toBe(false);
    expect(lstatSync(path.join(copy, 'node_modules/dep/bin.sh')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(path.join(copy, 'node_modules/main.js'))).toBe('dep/index.js');
  });

  it('counts a deleted dependency file and a changed executable bit', async () => {
    const { sh, diff } = await setup();
    sh('rm node_modules/dep/index.js && chmod -x node_modules/dep/bin.sh');
    expect((await diff()).diff.ignored_changed).toEqual([
      { path: 'node_modules/dep/bin.sh', status: 'modified' },
      { path: 'node_modules/dep/index.js', status: 'deleted' },
    ]);
  });

  it('refuses to grade when the diff could not be taken (no commit of the workspace to take changes from)', async () => {
    const { ws, sh, grade } = await setup();
    sh('true');
    rmSync(path.join(ws.harness_git_dir, 'refs/agentguard'), { recursive: true, force: true });
    await expect(grade()).rejects.toThrow(/refs\/agentguard\/workspace|Not a valid object name/);
  });
});
