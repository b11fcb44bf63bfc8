import { existsSync, realpathSync } from 'node:fs';
import { cp, rm } from 'node:fs/promises';
import path from 'node:path';
import { RUN_FILES } from '../evidence/layout.js';
import type { WorkspaceEvidence } from '../evidence/types.js';
import { displayPath, pathKey, splitZBytes } from './byte-paths.js';
import { copyTemplate } from './copy-template.js';
import { commitTree } from './fast-import.js';
import { allSettled, git } from './git.js';
import { withholdGraderFiles } from './grader-files.js';
import { hashIgnored, type IgnoredManifest } from './ignored-hashes.js';
import { historyEvidence, type TemplateHistory, takeTemplateHistory } from './template-history.js';
import { relocateVenv } from './venv-relocate.js';

export type PreparedWorkspace = WorkspaceEvidence & {
  /** The harness's own copy of the repository database, outside the agent's workspace. */
  harness_git_dir: string;
  /** Ignored, untracked files already present in the template (not the agent's doing). */
  baseline_ignored: string[];
  /** The workspace's .git is the harness's copy (the template had none of its own). */
  workspace_git_copied: boolean;
  /** The grader-only files, kept here (in the run folder the sandbox hides) and not in the workspace or its git. */
  grader_dir: string;
  /** The ignored files at the baseline (what setup installed), each with the hash of its content. */
  ignored_hashes: IgnoredManifest;
  /** The template repository's history for the grading copies, kept beside baseline.git; null when none. */
  template_history: TemplateHistory | null;
};

/** What of a prepared workspace is evidence (`workspace.json`): the harness's own fields left out. */
export function workspaceEvidence(
  ws: PreparedWorkspace,
): Omit<
  PreparedWorkspace,
  'harness_git_dir' | 'workspace_git_copied' | 'grader_dir' | 'ignored_hashes' | 'template_history'
> {
  const {
    harness_git_dir: _g,
    workspace_git_copied: _c,
    grader_dir: _d,
    ignored_hashes: _h,
    template_history: _t,
    ...evidence
  } = ws;
  return evidence;
}

/** The template's folder as a venv made in it may name it: as given, and with its links resolved. */
function checkoutPaths(template: string): string[] {
  const given = path.resolve(template);
  try {
    return [...new Set([given, realpathSync(given)])];
  } catch {
    return [given];
  }
}

/**
 * Copy the template into `<runDir>/repo`, commit a baseline, and keep the commit in a git
 * directory the agent cannot reach (`<runDir>/baseline.git`). The workspace gets an identical
 * `.git` of its own so the agent sees an ordinary repository; whatever it does to that one
 * (commit, reset, switch branches, delete it) cannot move the baseline.
 */
export async function prepareWorkspace(opts: {
  runId: string;
  runDir: string;
  template: string;
  configPath: string;
  /** A folder of the template not to copy: the output folder, when it lies in the template. */
  skip?: string;
  /** Runs after the template is copied and before the baseline commit (e.g. skills installed into the repo). */
  afterCopy?: (repoDir: string) => void;
  /** The template's grader-only files (by workspace path): withheld from the workspace and its git. */
  graderOnly?: (rel: string) => boolean;
}): Promise<PreparedWorkspace> {
  const repoDir = path.join(opts.runDir, 'repo');
  const gitDir = path.join(opts.runDir, 'baseline.git');
  const graderDir = path.join(opts.runDir, 'grader');
  const { files, venvs } = copyTemplate(opts.template, repoDir, opts.configPath, opts.skip);
  // A venv the user made in their checkout names it: its scripts' #! lines, and an editable install's
  // .pth, finder or .egg-link (`pip install -e .`). In the copy they name the workspace, so the tests
  // import the workspace's code (the agent's change), never the checkout's.
  for (const venv of venvs)
    for (const from of checkoutPaths(opts.template)) relocateVenv(path.join(repoDir, venv), from, repoDir);
  opts.afterCopy?.(repoDir);
  if (opts.graderOnly) withholdGraderFiles(repoDir, graderDir, opts.graderOnly);
  const { sha, ignored, hashes } = await commitBaseline(repoDir, gitDir);
  const workspaceGit = path.join(repoDir, '.git');
  const copied = !existsSync(workspaceGit);
  if (copied) await copyGitDir(gitDir, repoDir);
  // The template's own history, for grading only: the agent's .git is the baseline's single commit,
  // since older commits may hold the grader-only files.
  const taken = await takeTemplateHistory(opts.template, path.join(opts.runDir, RUN_FILES.history));
  const history = taken.ok ? taken.history : null;
  return {
    run_id: opts.runId,
    repo_dir: repoDir,
    baseline_sha: sha,
    template: path.resolve(opts.template),
    files,
    harness_git_dir: gitDir,
    baseline_ignored: ignored,
    workspace_git_copied: copied,
    grader_dir: graderDir,
    ignored_hashes: hashes,
    template_history: history,
    history: taken.ok ? historyEvidence(taken.history) : { none: taken.reason },
  };
}

/**
 * The baseline again, after the config's setup_command changed the workspace: what setup wrote is
 * the starting point, not the agent's work. The workspace's own .git, when the harness made it,
 * is made again so the agent's `git status` starts clean too.
 */
export async function rebaseline(ws: PreparedWorkspace): Promise<PreparedWorkspace> {
  const { sha, ignored, hashes } = await commitBaseline(ws.repo_dir, ws.harness_git_dir);
  if (ws.workspace_git_copied) {
    await rm(path.join(ws.repo_dir, '.git'), { recursive: true, force: true });
    await copyGitDir(ws.harness_git_dir, ws.repo_dir);
  }
  return { ...ws, baseline_sha: sha, baseline_ignored: ignored, ignored_hashes: hashes };
}

/** Commit the workspace as the single baseline commit of `gitDir`; the files ignored by its .gitignore stay out. */
async function commitBaseline(
  repoDir: string,
  gitDir: string,
): Promise<{ sha: string; ignored: string[]; hashes: IgnoredManifest }> {
  const g = (args: string[]) => git(args, { gitDir, workTree: repoDir });
  await g(['init', '-q', '-b', 'main']);
  // Files the template's own .gitignore excludes stay untracked, as in a real checkout.
  const ignored = splitZBytes(
    (await g(['ls-files', '-z', '--others', '--ignored', '--exclude-standard'])).stdout,
  );
  await commitTree({ gitDir, workTree: repoDir, skip: new Set(ignored.map(pathKey)) });
  // The index (refreshed, so the workspace's `git status` starts clean) and the commit's name are
  // independent; the ignored files are hashed while git works.
  const indexed = g(['read-tree', 'main']).then(() => g(['update-index', '-q', '--refresh']));
  const head = g(['rev-parse', 'HEAD']);
  let hashes: IgnoredManifest;
  try {
    hashes = hashIgnored(repoDir, ignored);
  } finally {
    await allSettled([indexed, head]);
  }
  const sha = (await head).stdout.toString('utf8').trim();
  return { sha, ignored: ignored.map(displayPath), hashes };
}

/** The workspace's own .git: a copy of the harness's, pointing at no work tree of its own. */
async function copyGitDir(gitDir: string, repoDir: string): Promise<void> {
  const workspaceGit = path.join(repoDir, '.git');
  await cp(gitDir, workspaceGit, { recursive: true });
  await git(['config', '--unset', 'core.worktree'], { gitDir: workspaceGit, workTree: repoDir });
}
