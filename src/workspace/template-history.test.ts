import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectDiff } from './diff.js';
import { buildGradingCopy } from './grading-copy.js';
import { prepareWorkspace } from './prepare.js';
import { hidePlanted, linkHistoryPacks } from './template-history.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ag-history-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const run = (cwd: string, script: string) =>
  execFileSync('sh', ['-c', script], { cwd, env: ENV, encoding: 'utf8' }).trim();

/**
 * A checkout at v1.1 plus one commit (HEAD detached there, as a task's base commit often is), with a
 * grader-only answer committed, and a later commit on main tagged v2.0: the future the task asks for.
 */
function template(): { dir: string; future: string } {
  const dir = tmp();
  run(
    dir,
    [
      'git init -q -b main',
      'mkdir -p src hidden && echo v1 > src/a.py && echo "the answer" > hidden/expected.txt',
      'git add -A && git commit -qm one && git tag -a v1.0 -m "release 1.0"',
      'echo v1.1 > src/a.py && git commit -qam two && git tag v1.1',
      'echo base > src/a.py && git commit -qam three',
      'git checkout -q --detach',
      'git checkout -q main && echo fixed > src/a.py && git commit -qam "the fix" && git tag v2.0',
      'git checkout -q --detach HEAD~1',
    ].join(' && '),
  );
  return { dir, future: run(dir, 'git rev-parse v2.0') };
}

async function prepared(dir: string) {
  const runDir = tmp();
  const ws = await prepareWorkspace({
    runId: 'r',
    runDir,
    template: dir,
    configPath: '/c.yaml',
    graderOnly: (rel) => rel.startsWith('hidden/'),
  });
  const grade = async (dest: string, agentRev?: string) => {
    const made = await buildGradingCopy({
      harnessGitDir: ws.harness_git_dir,
      baselineSha: ws.baseline_sha,
      ...(agentRev ? { agentRev } : {}),
      dest,
      agentRepo: ws.repo_dir,
      applies: (rel) => rel.startsWith('src/'),
      graderDir: ws.grader_dir,
      ignored: ws.ignored_hashes,
      history: ws.template_history,
    });
    if (ws.template_history) linkHistoryPacks(dest, ws.template_history);
    return made;
  };
  return { ws, runDir, grade };
}

describe('the template history in the grading copy', () => {
  it('has the base commit and the tags on it, the agent change as uncommitted work, and no later commit', async () => {
    const { dir, future } = template();
    const base = run(dir, 'git rev-parse HEAD');
    const { ws, runDir, grade } = await prepared(dir);
    expect(ws.history).toEqual({ commit: base, branch: null, tags: 2 });

    const clean = path.join(runDir, 'grading-baseline');
    expect((await grade(clean, ws.baseline_sha)).history).toEqual({ commit: base, branch: null, tags: 2 });
    expect(run(clean, 'git describe --tags --dirty --long')).toMatch(/^v1\.1-1-g[0-9a-f]+$/);
    expect(run(clean, 'git describe --dirty')).toMatch(/^v1\.0-2-g[0-9a-f]+$/);
    expect(run(clean, 'git log --format=%s')).toBe('three\ntwo\none');
    // Plumbing without a refresh of its own agrees the copy is clean (the index was refreshed).
    expect(spawnSync('git', ['diff-index', '--quiet', 'HEAD'], { cwd: clean, env: ENV }).status).toBe(0);
    // Nothing after the base commit is anywhere in the copy's objects.
    expect(spawnSync('git', ['cat-file', '-e', future], { cwd: clean, env: ENV }).status).not.toBe(0);
    const all = run(clean, 'git cat-file --batch-all-objects --batch-check');
    expect(all).not.toContain(future);
    expect(run(clean, 'git tag')).toBe('v1.0\nv1.1');
    // The harness's sentinel appended to a tracked test, and the runner's report: not the project's change.
    run(clean, 'echo "# sentinel" >> src/a.py && touch .agentguard-tests-0123.report');
    await hidePlanted(clean, ['src/a.py']);
    expect(run(clean, 'git describe --tags --dirty --long')).toMatch(/^v1\.1-1-g[0-9a-f]+$/);
    expect(run(clean, 'git status --porcelain')).toBe('');

    // The agent's change: uncommitted work on the base commit.
    run(ws.repo_dir, 'echo agent > src/a.py');
    await collectDiff({
      repoDir: ws.repo_dir,
      harnessGitDir: ws.harness_git_dir,
      baselineSha: ws.baseline_sha,
      baselineIgnored: ws.baseline_ignored,
      baselineIgnoredHashes: ws.ignored_hashes,
      maxPatchBytes: 1 << 20,
    });
    const graded = path.join(runDir, 'grading');
    await grade(graded);
    expect(run(graded, 'git describe --tags --dirty')).toMatch(/^v1\.1-1-g[0-9a-f]+-dirty$/);
    expect(run(graded, 'git status --porcelain --untracked-files=no')).toBe('M src/a.py');
  });

  it("stays out of the agent's repository, and the copy's packs are read-only links", async () => {
    const { dir } = template();
    const base = run(dir, 'git rev-parse HEAD');
    const { ws, runDir, grade } = await prepared(dir);
    // The agent's .git has the baseline's single commit: older commits hold the grader-only answer.
    expect(spawnSync('git', ['cat-file', '-e', base], { cwd: ws.repo_dir, env: ENV }).status).not.toBe(0);
    expect(run(ws.repo_dir, 'git cat-file --batch-all-objects --batch')).not.toContain('the answer');
    const copy = path.join(runDir, 'grading-baseline');
    await grade(copy, ws.baseline_sha);
    const pack = statSync(path.join(copy, run(copy, 'ls .git/objects/pack/*.pack')));
    expect([pack.mode & 0o222, pack.nlink]).toEqual([0, 2]);
  });

  it('is not taken from a .git that reaches outside the template', async () => {
    const other = template().dir;
    const cases: Record<string, (d: string) => void> = {
      'a .git file': (d) => writeFileSync(path.join(d, '.git'), `gitdir: ${other}/.git\n`),
      alternates: (d) => {
        run(d, 'git init -q && git commit -q --allow-empty -m x');
        writeFileSync(path.join(d, '.git/objects/info/alternates'), `${other}/.git/objects\n`);
      },
      'a linked pack folder': (d) => {
        run(d, 'git init -q && git commit -q --allow-empty -m x && rm -rf .git/objects/pack');
        symlinkSync(path.join(other, '.git/objects/pack'), path.join(d, '.git/objects/pack'));
      },
      'a commondir': (d) => {
        run(d, 'git init -q && git commit -q --allow-empty -m x');
        writeFileSync(path.join(d, '.git/commondir'), `${other}/.git\n`);
      },
    };
    for (const [name, plant] of Object.entries(cases)) {
      const d = tmp();
      mkdirSync(path.join(d, 'src'));
      writeFileSync(path.join(d, 'src/a.py'), 'x\n');
      plant(d);
      const { ws } = await prepared(d);
      expect([name, ws.template_history, ws.history]).toEqual([
        name,
        null,
        { none: expect.stringMatching(/\.git/) },
      ]);
    }
    const plain = tmp();
    writeFileSync(path.join(plain, 'a.py'), 'x\n');
    expect((await prepared(plain)).ws.history).toEqual({ none: 'the template has no .git folder' });
  });
});
