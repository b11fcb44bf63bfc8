import { copyFileSync, lstatSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { DiffEvidence, DiffFile, DiffFileStatus } from '../evidence/types.js';
import { displayPath, pathKey, splitZBytes } from './byte-paths.js';
import { isInside } from './copy-template.js';
import { commitEntries } from './fast-import.js';
import { allSettled, git } from './git.js';
import { changedIgnored, type IgnoredManifest } from './ignored-hashes.js';
import { walkTree } from './walk-tree.js';

export type DiffOptions = {
  repoDir: string;
  harnessGitDir: string;
  baselineSha: string;
  baselineIgnored: string[];
  /** The unified patch is cut here and marked truncated. */
  maxPatchBytes: number;
  maxIgnoredFiles?: number;
  /** Each git call that reads the workspace is stopped after this long (a fifo named .gitignore blocks it). */
  gitTimeoutMs?: number;
  /** Files larger than this are not diffed but reported in `skipped_files` (default 512 MiB). */
  maxFileBytes?: number;
  /** The git-ignored files setup installed, hashed at the baseline: each one changed is in `ignored_changed`. */
  baselineIgnoredHashes?: IgnoredManifest;
};

export type CollectedDiff = { diff: DiffEvidence; patch: string };

const STATUS: Record<string, DiffFileStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'added',
  T: 'type-changed',
};

/**
 * Where the workspace's state is committed for the comparison. It stays after a diff that was
 * taken (the grading copy takes the agent's changes from it) and is removed before each new one,
 * so a diff that fails leaves none behind to be mistaken for the workspace.
 */
export const WORKSPACE_REF = 'refs/agentguard/workspace';

/**
 * Compare the workspace as it is now with the baseline commit. The workspace is committed into the
 * harness's own git directory as plain content (a walk of its files, not `git add`), so the
 * agent's commits, resets, branch switches or a deleted `.git` make no difference, untracked files
 * are included, and a nested repository or submodule is its files, not one `Subproject commit`
 * line. Never throws for anything the workspace holds: a diff that cannot be taken comes back with
 * `error` set, an empty file list and the patch marked cut, so every check fails closed.
 */
export async function collectDiff(opts: DiffOptions): Promise<CollectedDiff> {
  try {
    return await compare(opts);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { diff: failedDiff(opts, `the workspace diff could not be taken: ${message}`), patch: '' };
  }
}

async function compare(opts: DiffOptions): Promise<CollectedDiff> {
  const index = path.join(opts.harnessGitDir, 'agentguard-diff.index');
  copyFileSync(path.join(opts.harnessGitDir, 'index'), index);
  try {
    const timeoutMs = opts.gitTimeoutMs ?? 300_000;
    // Untracked files .gitignore hides (against the baseline index, so a tracked file is never one).
    // git does not descend into a nested repository here and lists it as `dir/`. The last diff's
    // ref goes meanwhile.
    const [listed] = await allSettled([
      git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard'], {
        gitDir: opts.harnessGitDir,
        workTree: opts.repoDir,
        indexFile: index,
        timeoutMs,
      }),
      git(['update-ref', '-d', WORKSPACE_REF], { gitDir: opts.harnessGitDir }),
    ]);
    // Names stay bytes until they are shown: one that is not UTF-8 must still match its file.
    const ignoredBytes = splitZBytes(listed.stdout);
    const ignored = new Set(ignoredBytes.map(pathKey));
    const ignoredNow = ignoredBytes.map(displayPath);
    const walk = walkTree(opts.repoDir, (rel, isDir) =>
      ignored.has(isDir ? `${pathKey(rel)}/` : pathKey(rel)),
    );
    const committed = await commitEntries({
      gitDir: opts.harnessGitDir,
      workTree: opts.repoDir,
      ref: WORKSPACE_REF,
      entries: walk.entries,
      ...(opts.maxFileBytes !== undefined ? { maxFileBytes: opts.maxFileBytes } : {}),
    });
    if (!committed.ok) return { diff: failedDiff(opts, committed.error), patch: '' };
    // Commit against commit, bare: a .gitattributes the agent wrote (`*.pem -diff`, a diff driver)
    // cannot turn its content into "Binary files differ".
    const g = (args: string[], maxBuffer?: number) =>
      git(args, { gitDir: opts.harnessGitDir, maxBuffer, timeoutMs });
    const base = ['diff', '--no-ext-diff', '--no-textconv', '-M', opts.baselineSha, WORKSPACE_REF];
    // The patch quotes names C-style (git's default, `"b/bad\377.txt"`), so a name that is not
    // UTF-8 survives as text; the patch readers unquote it to the same name diff.json shows.
    const [nameStatus, numstat, patchOut] = await allSettled([
      g([...base, '-z', '--name-status']),
      g([...base, '-z', '--numstat']),
      g(['-c', 'core.quotePath=true', ...base, '--no-color'], opts.maxPatchBytes),
    ]);
    const statuses = parseNameStatus(nameStatus.stdout);
    const counts = parseNumstat(numstat.stdout);

    const files: DiffFile[] = statuses.map((s) => {
      const c = counts.get(pathKey(s.path)) ?? { added: 0, deleted: 0, binary: false };
      const file: DiffFile = { path: displayPath(s.path), status: s.status, ...c };
      if (s.old_path !== undefined) file.old_path = displayPath(s.old_path);
      if (s.status !== 'deleted') {
        const link = inspectLink(opts.repoDir, s.path);
        if (link) file.link = link;
      }
      return file;
    });

    const known = new Set(opts.baselineIgnored);
    const fresh = ignoredNow.filter((p) => !known.has(p));
    const maxIgnored = opts.maxIgnoredFiles ?? 1000;
    let patch = patchOut.stdout.toString('utf8');
    if (patchOut.truncated && Buffer.byteLength(patch) > opts.maxPatchBytes) {
      patch = patchOut.stdout.subarray(0, opts.maxPatchBytes).toString('utf8');
    }
    const nested = [
      ...walk.nestedRepos,
      ...fresh.filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1)),
    ].sort();
    const skipped = [...walk.skipped, ...committed.unreadable];
    const diff: DiffEvidence = {
      baseline_sha: opts.baselineSha,
      files,
      added: files.reduce((n, f) => n + f.added, 0),
      deleted: files.reduce((n, f) => n + f.deleted, 0),
      patch_truncated: patchOut.truncated,
      patch_bytes: Buffer.byteLength(patch),
      ignored_files: fresh.slice(0, maxIgnored),
      ignored_files_truncated: fresh.length > maxIgnored,
      workspace_git_changed: !isGitDir(path.join(opts.repoDir, '.git')),
      nested_repositories: nested,
      skipped_files: skipped,
    };
    if (opts.baselineIgnoredHashes) {
      diff.ignored_changed = changedIgnored(opts.repoDir, opts.baselineIgnoredHashes);
    }
    return { diff, patch };
  } finally {
    rmSync(index, { force: true });
  }
}

/** A diff that vouches for nothing: no files, the patch marked cut, and why. */
function failedDiff(opts: DiffOptions, error: string): DiffEvidence {
  return {
    baseline_sha: opts.baselineSha,
    files: [],
    added: 0,
    deleted: 0,
    patch_truncated: true,
    patch_bytes: 0,
    ignored_files: [],
    ignored_files_truncated: true,
    workspace_git_changed: !isGitDir(path.join(opts.repoDir, '.git')),
    error,
  };
}

type NameStatus = { path: Buffer; old_path?: Buffer; status: DiffFileStatus };
const NO_NAME = Buffer.alloc(0);

/** `git diff -z --name-status`, names kept as bytes. */
function parseNameStatus(buf: Buffer): NameStatus[] {
  const parts = splitZBytes(buf);
  const out: NameStatus[] = [];
  for (let i = 0; i < parts.length; ) {
    const code = (parts[i++] ?? NO_NAME).toString('latin1');
    const letter = code[0] ?? 'M';
    if (letter === 'R' || letter === 'C') {
      const from = parts[i++] ?? NO_NAME;
      const to = parts[i++] ?? NO_NAME;
      out.push(
        letter === 'R' ? { path: to, old_path: from, status: 'renamed' } : { path: to, status: 'added' },
      );
    } else {
      out.push({ path: parts[i++] ?? NO_NAME, status: STATUS[letter] ?? 'modified' });
    }
  }
  return out;
}

/**
 * `git diff --numstat -z`: "A\tD\tpath\0", or for renames "A\tD\t\0old\0new\0". Binary files show "-".
 * Keyed by `pathKey` (read as latin1: one char per byte), like the name-status names.
 */
function parseNumstat(buf: Buffer): Map<string, { added: number; deleted: number; binary: boolean }> {
  const parts = buf.toString('latin1').split('\0');
  const map = new Map<string, { added: number; deleted: number; binary: boolean }>();
  for (let i = 0; i < parts.length; i++) {
    const rec = parts[i] ?? '';
    if (rec === '') continue;
    const [a = '0', d = '0', p = ''] = rec.split('\t');
    const binary = a === '-';
    const entry = { added: binary ? 0 : Number(a), deleted: binary ? 0 : Number(d), binary };
    if (p === '') {
      i += 2;
      map.set(parts[i] ?? '', entry);
    } else {
      map.set(p, entry);
    }
  }
  return map;
}

function inspectLink(repoDir: string, rel: Buffer): DiffFile['link'] | undefined {
  const abs = Buffer.concat([Buffer.from(`${repoDir}/`), rel]);
  try {
    if (!lstatSync(abs).isSymbolicLink()) return undefined;
    const target = displayPath(readlinkSync(abs, { encoding: 'buffer' }));
    // Only '/' and '.' decide where a link points, and decoding never makes or hides either.
    const lexical = path.resolve(path.dirname(displayPath(abs)), target);
    let escapes = !isInside(repoDir, lexical);
    if (!escapes) {
      try {
        escapes = !isInside(realpathSync(repoDir), realpathSync(abs));
      } catch {
        // dangling link that stays inside lexically: harmless
      }
    }
    return { target, escapes };
  } catch {
    return undefined;
  }
}

function isGitDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory() && lstatSync(path.join(p, 'HEAD')).isFile();
  } catch {
    return false;
  }
}
