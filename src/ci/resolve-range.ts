import { statSync } from 'node:fs';
import path from 'node:path';
import { SetupError } from '../errors.js';
import { firstLine, userGit } from './user-git.js';

/** What a CI run judges: the working tree against HEAD, or a pull request's commits. */
export type CiRange =
  | { mode: 'working-tree'; root: string; base_sha: string; dirty: boolean }
  | {
      mode: 'commits';
      root: string;
      base_ref: string;
      head_ref: string;
      base_sha: string;
      head_sha: string;
      /** The merge base of base and head: the PR is blamed only for its own commits. */
      merge_base: string;
      /** Uncommitted changes in the checkout, which this mode does not judge (said, not refused). */
      dirty: boolean;
    };

/** The top of the git checkout holding `dir`, or a one-sentence SetupError. */
export function repositoryRoot(dir: string): string {
  const abs = path.resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    // said below
  }
  if (!isDir) throw new SetupError(`--repo ${abs} is not a folder. Fix: pass the folder of a git checkout.`);
  const r = userGit(abs, ['rev-parse', '--show-toplevel']);
  if (!r.ok)
    throw new SetupError(
      `${abs} is not inside a git repository. Fix: run agentguard ci in a checkout, or pass --repo DIR.`,
    );
  return firstLine(r.stdout);
}

/** Resolve the refs to commits, naming the ref (and, in a shallow clone, how to fetch it) when one is missing. */
export function resolveRange(root: string, base: string | undefined, head: string | undefined): CiRange {
  const dirty = isDirty(root);
  if (base === undefined) {
    if (head !== undefined)
      throw new SetupError(
        '--head needs --base. Fix: pass --base REF too, or neither to judge the working tree.',
      );
    const sha = commitOf(root, 'HEAD');
    if (!sha)
      throw new SetupError(
        `${root} has no commit yet, so there is nothing to compare the working tree with. Fix: commit a first version.`,
      );
    return { mode: 'working-tree', root, base_sha: sha, dirty };
  }
  const headRef = head ?? 'HEAD';
  const headSha = commitOf(root, headRef) ?? missing(root, headRef, '--head');
  const baseSha = commitOf(root, base) ?? missing(root, base, '--base');
  const mb = userGit(root, ['merge-base', baseSha, headSha]);
  if (!mb.ok) {
    if (isShallow(root))
      throw new SetupError(
        `the history between ${base} and ${headRef} is cut off in this shallow clone, so their merge base is missing. ` +
          `Fix: fetch the full history (actions/checkout with fetch-depth: 0, or git fetch --unshallow origin).`,
      );
    throw new SetupError(
      `${base} and ${headRef} have no common history. Fix: pass as --base the branch the changes were made from.`,
    );
  }
  return {
    mode: 'commits',
    root,
    base_ref: base,
    head_ref: headRef,
    base_sha: baseSha,
    head_sha: headSha,
    merge_base: firstLine(mb.stdout),
    dirty,
  };
}

function commitOf(root: string, ref: string): string | null {
  if (ref.startsWith('-') || ref.includes('\0')) return null;
  const r = userGit(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  return r.ok ? firstLine(r.stdout) : null;
}

function missing(root: string, ref: string, flag: string): never {
  if (isShallow(root))
    throw new SetupError(
      `${flag} ${ref} is not in this shallow clone: its commit was not fetched. ` +
        `Fix: fetch it (actions/checkout with fetch-depth: 0, or git fetch origin ${ref}).`,
    );
  throw new SetupError(
    `${flag} ${ref} is not a branch, tag or commit of ${root}. Fix: check the name, or fetch it (git fetch origin ${ref}).`,
  );
}

function isShallow(root: string): boolean {
  return firstLine(userGit(root, ['rev-parse', '--is-shallow-repository']).stdout) === 'true';
}

/** Staged, unstaged or untracked (not ignored) changes in the checkout. */
function isDirty(root: string): boolean {
  const r = userGit(root, ['status', '--porcelain', '-z', '--untracked-files=normal']);
  return r.ok && r.stdout.length > 0;
}
