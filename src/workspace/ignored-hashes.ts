import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { displayPath, joinBytes, pathKey } from './byte-paths.js';

/**
 * What setup left in the workspace that git ignores (node_modules, .venv): each file's name and a
 * hash of its content, taken when the baseline is committed. The diff sees only tracked content, so
 * an edit to an installed dependency would otherwise change what the tests run with and show no
 * diff at all. Keyed by `pathKey`.
 */
export type IgnoredManifest = Map<string, { rel: Buffer; hash: string }>;

export type IgnoredChange = { path: string; status: 'modified' | 'deleted' };

/** A file's or link's bytes as the harness reads them; null for anything else or what cannot be read. */
export type EntryBytes = { kind: 'link' | 'file' | 'exec'; data: Buffer };

export function readEntry(abs: Buffer): EntryBytes | null {
  try {
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) return { kind: 'link', data: readlinkSync(abs, { encoding: 'buffer' }) };
    if (st.isFile()) return { kind: st.mode & 0o111 ? 'exec' : 'file', data: readFileSync(abs) };
    return null;
  } catch {
    return null;
  }
}

/** Hash of one entry: its kind (link, file, executable file) and its bytes (a link's are its target). */
export function hashOf(entry: EntryBytes): string {
  return createHash('sha256').update(`${entry.kind}\0`).update(entry.data).digest('hex');
}

function hashAt(abs: Buffer): string | null {
  const entry = readEntry(abs);
  return entry === null ? null : hashOf(entry);
}

/** The manifest of the ignored files `names` lists (git's `ls-files --others --ignored`; folders, ending in `/`, are nested repositories and left out). */
export function hashIgnored(repoDir: string, names: readonly Buffer[]): IgnoredManifest {
  const manifest: IgnoredManifest = new Map();
  const root = Buffer.from(repoDir);
  for (const rel of names) {
    if (rel.at(-1) === 0x2f) continue;
    const hash = hashAt(joinBytes(root, rel));
    if (hash !== null) manifest.set(pathKey(rel), { rel, hash });
  }
  return manifest;
}

/** The manifest's files that are not as they were: changed (content, mode, link target, kind) or gone. */
export function changedIgnored(repoDir: string, manifest: IgnoredManifest): IgnoredChange[] {
  const root = Buffer.from(repoDir);
  const out: IgnoredChange[] = [];
  for (const { rel, hash } of manifest.values()) {
    const now = hashAt(joinBytes(root, rel));
    if (now === hash) continue;
    out.push({ path: displayPath(rel), status: now === null ? 'deleted' : 'modified' });
  }
  return out;
}
