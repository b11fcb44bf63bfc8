import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  lchownSync,
  linkSync,
  lstatSync,
  readdirSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { HistoryEvidence } from '../evidence/types.js';
import { git, gitEnv } from './git.js';

/** The template repository's history as the harness keeps it: a bare clone in the run folder. */
export type TemplateHistory = {
  /** `<runDir>/history.git`: the run folder is closed to run users, and the agent's `.git` never holds it. */
  git_dir: string;
  /** The template's HEAD: the task's base commit. */
  commit: string;
  /** The branch HEAD named, or null when it was detached. */
  branch: string | null;
  tags: number;
};

/** What of the history is evidence: the base commit, its branch, how many tags. */
export function historyEvidence(h: TemplateHistory): HistoryEvidence {
  return { commit: h.commit, branch: h.branch, tags: h.tags };
}

/** The clone is one `git clone`; a repository this slow to pack is graded without its history. */
const CLONE_TIMEOUT_MS = 120_000;

/**
 * Take the template repository's history up to its HEAD (the task's base commit) and the tags on
 * it, for the grading copy: tests that ask git for a version (`git describe`, setuptools_scm,
 * versioneer) or read `git log` find what a checkout has. `--single-branch` from a detached or
 * named HEAD brings that commit's ancestors and only the tags that point into them, so no later
 * commit (a fix the task asks for) is in it. The clone goes through upload-pack (`--no-local`), so
 * objects are read and checked as a fetch does, never hard-linked from the template's folder.
 * Returns why not when the template has no repository of its own or one that reaches outside it.
 */
export async function takeTemplateHistory(
  template: string,
  dest: string,
): Promise<{ ok: true; history: TemplateHistory } | { ok: false; reason: string }> {
  const refused = outsideReach(path.join(template, '.git'));
  if (refused) return { ok: false, reason: refused };
  const env: Record<string, string> = gitEnv({ gitDir: dest });
  delete env.GIT_DIR;
  // The template may be another user's checkout: upload-pack is told it is safe to read (it reads
  // objects and refs; the hooks and commands a repository's config can name are not its to run).
  const r = spawnSync(
    'git',
    [
      'clone',
      '-q',
      '--bare',
      '--single-branch',
      '--no-local',
      '--upload-pack',
      "git -c 'safe.directory=*' upload-pack",
      '--',
      path.resolve(template),
      dest,
    ],
    { env, encoding: 'utf8', timeout: CLONE_TIMEOUT_MS, killSignal: 'SIGKILL' },
  );
  if (r.error || r.status !== 0) {
    const why = r.error ? errorMessage(r.error) : r.stderr.trim().split('\n').slice(-1)[0];
    return { ok: false, reason: `git clone of the template failed: ${why}` };
  }
  const g = async (args: string[]) => (await git(args, { gitDir: dest })).stdout.toString('utf8').trim();
  let commit: string;
  try {
    commit = await g(['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  } catch {
    return { ok: false, reason: "the template's repository has no commit" };
  }
  let branch: string | null = null;
  try {
    branch = (await g(['symbolic-ref', '-q', '--short', 'HEAD'])) || null;
  } catch {
    // detached
  }
  const tags = (await g(['for-each-ref', '--format=%(refname)', 'refs/tags']))
    .split('\n')
    .filter(Boolean).length;
  return { ok: true, history: { git_dir: dest, commit, branch, tags } };
}

/**
 * Why the template's `.git` is not read, or null: it must be a folder of its own whose objects and
 * refs all lie in it. A `.git` file or link (a worktree, a submodule), `commondir`, an alternates
 * file or a link among the objects or refs would have the clone read another repository on the
 * host into the grading copy, which the template's author does not get to choose.
 */
function outsideReach(dotGit: string): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dotGit);
  } catch {
    return 'the template has no .git folder';
  }
  if (!st.isDirectory())
    return "the template's .git is a file or link (a worktree or submodule), not a repository of its own";
  for (const file of ['commondir', 'objects/info/alternates', 'objects/info/http-alternates']) {
    if (exists(path.join(dotGit, file)))
      return `the template's .git/${file} names objects outside the repository`;
  }
  for (const top of ['HEAD', 'packed-refs', 'objects', 'refs', 'shallow']) {
    const link = firstLink(path.join(dotGit, top));
    if (link) return `the template's .git holds a symbolic link (${path.relative(dotGit, link)})`;
  }
  return null;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The first symbolic link at or under `p`, or null. */
function firstLink(p: string): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(p);
  } catch {
    return null;
  }
  if (st.isSymbolicLink()) return p;
  if (!st.isDirectory()) return null;
  for (const e of readdirSync(p, { withFileTypes: true })) {
    const child = path.join(p, e.name);
    if (e.isSymbolicLink()) return child;
    if (e.isDirectory()) {
      const found = firstLink(child);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Point the grading copy's fresh repository at the history, before the copy is given to the run
 * user: HEAD at the base commit (on its branch, or detached as the template was), the tags, and an
 * index of HEAD's tree refreshed against the files, so the agent's changes read as uncommitted
 * work, as in the developer's checkout (`git describe --dirty`, `git status`). Objects are reached
 * through the history's object folder for now; `linkHistoryPacks` puts them in the copy after.
 * Stat checks are minimal (size and mtime), so handing the files to the run user (a new owner and
 * ctime) leaves the index fresh.
 */
export async function seedGradingHistory(dest: string, history: TemplateHistory): Promise<HistoryEvidence> {
  const target = {
    gitDir: path.join(dest, '.git'),
    workTree: dest,
    alternates: path.join(history.git_dir, 'objects'),
  };
  const g = (args: string[], input?: string) =>
    git(args, { ...target, ...(input === undefined ? {} : { input: Buffer.from(input) }) });
  const tags = (
    await git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/tags'], {
      gitDir: history.git_dir,
    })
  ).stdout
    .toString('utf8')
    .split('\n')
    .filter(Boolean);
  if (tags.length > 0)
    await g(
      ['update-ref', '--stdin'],
      `${tags.map((t) => `create ${t.split(' ')[1]} ${t.split(' ')[0]}`).join('\n')}\n`,
    );
  if (history.branch) {
    await g(['update-ref', `refs/heads/${history.branch}`, history.commit]);
    await g(['symbolic-ref', 'HEAD', `refs/heads/${history.branch}`]);
  } else await g(['update-ref', '--no-deref', 'HEAD', history.commit]);
  await g(['config', 'core.checkStat', 'minimal']);
  await g(['config', 'core.trustctime', 'false']);
  await g(['read-tree', 'HEAD']);
  // The runner's report the harness asks for is the harness's, not the project's: not untracked work.
  appendFileSync(path.join(target.gitDir, 'info/exclude'), '/.agentguard-tests-*\n');
  // Exit 1 says some files differ from HEAD: the agent's changes, which stay uncommitted.
  spawnSync('git', ['update-index', '-q', '--refresh'], { env: gitEnv(target), cwd: dest });
  return historyEvidence(history);
}

/**
 * Hard-link the history's packs into the grading copy's repository, after the copy was given to
 * the run user: the links stay root's and read-only, so the tests read the history but cannot
 * write into the harness's packs through them (deleting a link drops only the copy's name).
 */
export function linkHistoryPacks(dest: string, history: TemplateHistory): void {
  const from = path.join(history.git_dir, 'objects/pack');
  const to = path.join(dest, '.git/objects/pack');
  for (const name of readdirSync(from)) {
    if (!/\.(pack|idx|rev)$/.test(name)) continue;
    const src = path.join(from, name);
    chmodSync(src, 0o444);
    try {
      linkSync(src, path.join(to, name));
    } catch {
      copyFileSync(src, path.join(to, name));
      chmodSync(path.join(to, name), 0o444);
    }
  }
}

/**
 * The sentinel the harness appended to tracked test files is the harness's, not a change to the
 * project: those files are marked unchanged in the copy's index (HEAD's bytes stand for them), so
 * `git describe --dirty` and `git status` see the checkout as the agent left it. The index stays
 * the copy's owner's.
 */
export async function hidePlanted(dest: string, rels: readonly string[]): Promise<void> {
  if (rels.length === 0) return;
  const gitDir = path.join(dest, '.git');
  await git(['update-index', '--assume-unchanged', '--', ...rels], { gitDir, workTree: dest });
  const owner = statSync(gitDir);
  lchownSync(path.join(gitDir, 'index'), owner.uid, owner.gid);
}
