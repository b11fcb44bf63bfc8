import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readlinkSync, renameSync, rmdirSync, symlinkSync } from 'node:fs';
import { dirnameBytes, displayPath, joinBytes } from './byte-paths.js';
import { hashOf, readEntry } from './ignored-hashes.js';
import { walkTree } from './walk-tree.js';

/**
 * Move the grader-only files out of the freshly copied workspace into `graderDir` (beside the
 * workspace, in the run folder the sandbox hides), before the baseline is committed: they are then
 * in neither the agent's workspace nor its `.git`, and `git show HEAD:hidden/expected.txt` finds
 * nothing. They come back only in the grading copy (`placeGraderFiles`). Returns their paths.
 */
export function withholdGraderFiles(
  repoDir: string,
  graderDir: string,
  isGraderOnly: (rel: string) => boolean,
): string[] {
  const moved: string[] = [];
  const walk = walkTree(repoDir, () => false);
  for (const entry of walk.entries) {
    const rel = displayPath(entry.rel);
    if (!isGraderOnly(rel)) continue;
    const to = joinBytes(Buffer.from(graderDir), entry.rel);
    mkdirSync(dirnameBytes(to), { recursive: true });
    renameSync(entry.abs, to);
    moved.push(rel);
    removeEmptyParents(repoDir, entry.rel);
  }
  return moved;
}

/** An emptied folder would still name the grader files: remove the folders the move left empty. */
function removeEmptyParents(root: string, rel: Buffer): void {
  for (let dir = dirnameBytes(rel); dir.length > 0; dir = dirnameBytes(dir)) {
    try {
      rmdirSync(joinBytes(Buffer.from(root), dir));
    } catch {
      return; // not empty
    }
  }
}

/** One hash over a folder's files (names, kinds and bytes), for cache keys; empty folder or none: a fixed value. */
export function hashTree(dir: string): string {
  const h = createHash('sha256');
  for (const entry of walkTree(dir, () => false).entries) {
    const bytes = readEntry(entry.abs);
    h.update(entry.rel)
      .update('\0')
      .update(bytes ? hashOf(bytes) : 'unreadable')
      .update('\0');
  }
  return h.digest('hex');
}

/** Put the withheld grader files into the grading copy, over whatever the copy holds at their paths. */
export function placeGraderFiles(graderDir: string, dest: string): number {
  const walk = walkTree(graderDir, () => false);
  for (const entry of walk.entries) {
    const to = joinBytes(Buffer.from(dest), entry.rel);
    mkdirSync(dirnameBytes(to), { recursive: true });
    if (entry.mode === '120000') symlinkSync(readlinkSync(entry.abs, { encoding: 'buffer' }), to);
    else copyFileSync(entry.abs, to);
  }
  return walk.entries.length;
}
