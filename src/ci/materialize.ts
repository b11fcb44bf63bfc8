import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { SetupError } from '../errors.js';
import { splitZBytes } from '../workspace/byte-paths.js';
import { userGit } from './user-git.js';

/** The folder agentguard writes into a checkout; never part of what is judged. */
export const OUTPUT_FOLDER = '.agentguard';

/** Blobs read per `git cat-file --batch` call: bounds memory on a large tree. */
const BATCH = 2000;

type Blob = { mode: string; sha: string; path: Buffer };

/**
 * Write the files of commit `sha` into `dest` as plain content, straight from the object store.
 * Not `git archive` or `checkout`: those apply `.gitattributes` (export-ignore, export-subst, eol,
 * filters), so a pull request could hide or rewrite a file on its way to the judge. Submodules
 * (gitlinks) have no content here and are left out. Names are kept as bytes.
 */
export function writeCommitTree(root: string, sha: string, dest: string): number {
  const listed = userGit(root, ['ls-tree', '-r', '-z', '--full-tree', sha]);
  if (!listed.ok) throw new SetupError(`git ls-tree ${sha} failed in ${root}: ${listed.stderr}`);
  const blobs: Blob[] = [];
  for (const rec of splitZBytes(listed.stdout)) {
    const tab = rec.indexOf(0x09);
    const [mode = '', type = '', objectSha = ''] = rec.subarray(0, tab).toString('latin1').split(' ');
    if (type !== 'blob') continue;
    blobs.push({ mode, sha: objectSha, path: rec.subarray(tab + 1) });
  }
  mkdirSync(dest, { recursive: true });
  for (let i = 0; i < blobs.length; i += BATCH) {
    const chunk = blobs.slice(i, i + BATCH);
    const out = userGit(root, ['cat-file', '--batch'], { input: `${chunk.map((b) => b.sha).join('\n')}\n` });
    if (!out.ok) throw new SetupError(`git cat-file failed in ${root}: ${out.stderr}`);
    let at = 0;
    for (const blob of chunk) {
      const nl = out.stdout.indexOf(0x0a, at);
      const header = out.stdout.subarray(at, nl).toString('latin1').split(' ');
      const size = Number(header[2]);
      if (header[1] !== 'blob' || !Number.isFinite(size))
        throw new SetupError(`git cat-file could not read ${blob.sha} in ${root} (${header.join(' ')})`);
      const data = out.stdout.subarray(nl + 1, nl + 1 + size);
      at = nl + 1 + size + 1;
      writeEntry(dest, blob.path, blob.mode, data);
    }
  }
  return blobs.length;
}

/**
 * Copy the working tree as git would commit it now: tracked files (staged or not) and untracked
 * ones that `.gitignore` does not hide, minus agentguard's own output folder. Deleted files and
 * submodule folders are skipped.
 */
export function copyWorkingTree(root: string, dest: string): number {
  const listed = userGit(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  if (!listed.ok) throw new SetupError(`git ls-files failed in ${root}: ${listed.stderr}`);
  const seen = new Set<string>();
  const rootBuf = Buffer.from(`${root}/`);
  let files = 0;
  mkdirSync(dest, { recursive: true });
  for (const rel of splitZBytes(listed.stdout)) {
    const key = rel.toString('latin1');
    if (seen.has(key) || isOutput(rel)) continue;
    seen.add(key);
    const abs = Buffer.concat([rootBuf, rel]);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(abs);
    } catch {
      continue; // deleted in the working tree: the diff shows it gone
    }
    if (st.isSymbolicLink()) writeEntry(dest, rel, '120000', readlinkSync(abs, { encoding: 'buffer' }));
    else if (st.isFile()) {
      const to = target(dest, rel);
      copyFileSync(abs, to);
      chmodSync(to, st.mode & 0o111 ? 0o755 : 0o644);
    } else continue;
    files++;
  }
  return files;
}

function writeEntry(dest: string, rel: Buffer, mode: string, data: Buffer): void {
  const to = target(dest, rel);
  if (mode === '120000') symlinkSync(data, to);
  else writeFileSync(to, data, { mode: mode === '100755' ? 0o755 : 0o644 });
}

/** `dest/rel` with its folders made; `rel` comes from git, which never names `..` or an absolute path. */
function target(dest: string, rel: Buffer): Buffer {
  const to = Buffer.concat([Buffer.from(`${dest}/`), rel]);
  const slash = to.lastIndexOf(0x2f);
  mkdirSync(to.subarray(0, slash), { recursive: true });
  return to;
}

function isOutput(rel: Buffer): boolean {
  const s = rel.toString('latin1');
  return s === OUTPUT_FOLDER || s.startsWith(`${OUTPUT_FOLDER}/`);
}
