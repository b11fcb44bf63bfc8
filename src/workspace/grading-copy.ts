import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { GradingCopyEvidence } from '../evidence/types.js';
import { dirnameBytes, displayPath, joinBytes, pathKey, splitZBytes } from './byte-paths.js';
import { WORKSPACE_REF } from './diff.js';
import { allSettled, git } from './git.js';
import { placeGraderFiles } from './grader-files.js';
import { hashOf, type IgnoredManifest, readEntry } from './ignored-hashes.js';
import { seedGradingHistory, type TemplateHistory } from './template-history.js';

export type GradingCopyOptions = {
  harnessGitDir: string;
  baselineSha: string;
  /** The commit of the agent's workspace the changes come from (default: the one the diff made; the baseline's own for a copy of the baseline). */
  agentRev?: string;
  /** An empty or absent folder the copy is written to. */
  dest: string;
  /** The agent's workspace: only the dependencies setup installed are read from it, checked by hash. */
  agentRepo: string;
  /** Whether the agent's change to a workspace path is taken (allowed_paths, not a test or grader file). */
  applies: (rel: string) => boolean;
  /** The grader-only files the harness withheld from the workspace. */
  graderDir: string;
  ignored: IgnoredManifest;
  /** Test and grader paths (test_paths, grader_paths): the copy's files under them are listed as the tests start. */
  guarded?: (rel: string) => boolean;
  /** The template repository's history: the copy's .git gets HEAD at its base commit and its tags. */
  history?: TemplateHistory | null;
  /** The baseline commit's tree, when the caller already read it (`lsTree`): a commit's tree never changes. */
  baseTree?: Promise<BlobTree>;
};

export type TreeItem = { mode: string; sha: string; rel: Buffer };
/** Every blob and link of a commit's tree, by `pathKey`. */
export type BlobTree = ReadonlyMap<string, TreeItem>;

/**
 * The folder the tests grade: the baseline commit, with only the agent's changes that `applies`
 * accepts, taken from the commit the diff made of the workspace (`WORKSPACE_REF`, in the harness's
 * git directory) rather than from the agent's folder; then the grader-only files, and the
 * dependencies setup installed (git-ignored) copied from the workspace only where their content
 * still has the hash it had at the baseline. Blobs are written byte for byte (no checkout, so no
 * `.gitattributes` conversion), and nothing else the agent left in its folder reaches the tests.
 */
export async function buildGradingCopy(opts: GradingCopyOptions): Promise<GradingCopyEvidence> {
  const agentRev = opts.agentRev ?? WORKSPACE_REF;
  const baseTree = opts.baseTree ?? lsTree(opts.harnessGitDir, opts.baselineSha);
  // A copy of the baseline itself reads its tree once.
  const [base, agent] = await allSettled([
    baseTree,
    agentRev === opts.baselineSha ? baseTree : lsTree(opts.harnessGitDir, agentRev),
  ]);
  const files = new Map(base);
  const applied: string[] = [];
  const notApplied: string[] = [];
  for (const key of new Set([...base.keys(), ...agent.keys()])) {
    const before = base.get(key);
    const after = agent.get(key);
    if (before?.sha === after?.sha && before?.mode === after?.mode) continue;
    const rel = displayPath((after ?? before)?.rel ?? Buffer.alloc(0));
    if (!opts.applies(rel)) {
      notApplied.push(rel);
      continue;
    }
    applied.push(rel);
    if (after) files.set(key, after);
    else files.delete(key);
  }
  mkdirSync(opts.dest, { recursive: true });
  // A repository of its own, as a checkout has: tests that ask git find one, and what code under
  // test writes into .git (a hook, an alias) lands in this throwaway copy, where the rules still
  // see it, never in the agent's repository or the harness's. (No tree entry is a `.git`: the
  // workspace's commits leave every `.git` out.) With the template's history, HEAD is its base
  // commit and the agent's changes are uncommitted work on it (never the agent's .git).
  await allSettled([
    writeTree(opts.harnessGitDir, opts.dest, [...files.values()]),
    git(['init', '-q'], { gitDir: path.join(opts.dest, '.git'), workTree: opts.dest }),
  ]);
  const history = opts.history ? await seedGradingHistory(opts.dest, opts.history) : null;
  const graderFiles = placeGraderFiles(opts.graderDir, opts.dest);
  const deps = copyDependencies(opts.agentRepo, opts.dest, opts.ignored);
  // The test files there are as the tests start (tracked, and installed ones carried over): one the
  // tests then write that is not among them is one they made (a new snapshot, compiled tests).
  const guarded = opts.guarded;
  const testFiles = guarded
    ? [
        ...[...files.values()].map((f) => displayPath(f.rel)),
        ...[...opts.ignored.values()].map((e) => displayPath(e.rel)),
      ].filter((rel) => guarded(rel))
    : null;
  return {
    applied: applied.sort(),
    not_applied: notApplied.sort(),
    grader_files: graderFiles,
    dependencies: deps.copied,
    dependencies_changed: deps.changed,
    ...(testFiles ? { test_files: [...new Set(testFiles)].sort() } : {}),
    ...(history ? { history } : {}),
  };
}

/** Every blob and link of a commit's tree, by `pathKey`. */
export async function lsTree(gitDir: string, rev: string): Promise<BlobTree> {
  const out = (await git(['ls-tree', '-r', '-z', '--full-tree', rev], { gitDir })).stdout;
  const items = new Map<string, TreeItem>();
  for (const rec of splitZBytes(out)) {
    const tab = rec.indexOf(0x09);
    const [mode = '', type = '', sha = ''] = rec.subarray(0, tab).toString('latin1').split(' ');
    if (type !== 'blob') continue;
    const rel = rec.subarray(tab + 1);
    items.set(pathKey(rel), { mode, sha, rel });
  }
  return items;
}

/** Write the items' blobs under `dest`, read in one `git cat-file --batch`. */
async function writeTree(gitDir: string, dest: string, items: TreeItem[]): Promise<void> {
  if (items.length === 0) return;
  const input = Buffer.from(`${items.map((i) => i.sha).join('\n')}\n`);
  const out = (await git(['cat-file', '--batch'], { gitDir, input })).stdout;
  let at = 0;
  const root = Buffer.from(dest);
  for (const item of items) {
    const eol = out.indexOf(0x0a, at);
    const header = out.subarray(at, eol).toString('latin1').split(' ');
    const size = Number(header[2]);
    if (header[0] !== item.sha || !Number.isInteger(size)) {
      throw new Error(`git cat-file gave no blob for ${displayPath(item.rel)}`);
    }
    const data = out.subarray(eol + 1, eol + 1 + size);
    at = eol + 1 + size + 1;
    const abs = joinBytes(root, item.rel);
    mkdirSync(dirnameBytes(abs), { recursive: true });
    if (item.mode === '120000') symlinkSync(data, abs);
    else {
      writeFileSync(abs, data);
      if (item.mode === '100755') chmodSync(abs, 0o755);
    }
  }
}

/** Copy each dependency file whose bytes still hash as at the baseline; list the others. */
function copyDependencies(
  from: string,
  dest: string,
  manifest: IgnoredManifest,
): { copied: number; changed: string[] } {
  const src = Buffer.from(from);
  const root = Buffer.from(dest);
  const changed: string[] = [];
  let copied = 0;
  for (const { rel, hash } of manifest.values()) {
    const abs = joinBytes(src, rel);
    const to = joinBytes(root, rel);
    // Read once, hash what was read, write what was hashed: no window for the bytes to change.
    const entry = readEntry(abs);
    if (entry === null || hashOf(entry) !== hash) {
      changed.push(displayPath(rel));
      continue;
    }
    mkdirSync(dirnameBytes(to), { recursive: true });
    if (entry.kind === 'link') symlinkSync(entry.data, to);
    else {
      writeFileSync(to, entry.data);
      if (entry.kind === 'exec') chmodSync(to, 0o755);
    }
    copied++;
  }
  return { copied, changed: changed.sort() };
}
