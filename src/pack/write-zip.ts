import { createWriteStream, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ZipFile } from 'yazl';
import { readEvidenceBytes } from '../evidence/read.js';
import {
  compareNames,
  MANIFEST_PATH,
  manifestBytes,
  type PackFileEntry,
  type PackManifest,
  sha256Hex,
} from './manifest.js';
import { DEFAULT_LIMITS } from './read-zip.js';
import type { PackSource } from './walk-folder.js';

/*
 * Write a pack: the manifest first, then every entry in byte order of its name, each with the same
 * timestamp, a fixed mode and the same compression, so identical input gives an identical archive.
 * The timestamp is built from local fields because zip stores local (DOS) time: 1980-01-01 00:00
 * in every time zone. The archive is written next to its destination and renamed into place.
 */

const FIXED_TIME = new Date(1980, 0, 1, 0, 0, 0);
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

export function packManifest(
  files: Map<string, PackSource>,
  meta: Pick<PackManifest, 'name' | 'version' | 'families'>,
): { manifest: PackManifest; contents: Map<string, Buffer> } {
  const contents = new Map<string, Buffer>();
  const entries: PackFileEntry[] = [];
  for (const [name, src] of files) {
    if (src.type === 'symlink') {
      const bytes = Buffer.from(src.target);
      contents.set(name, bytes);
      entries.push({ path: name, type: 'symlink', target: src.target, sha256: sha256Hex(bytes) });
    } else {
      const bytes =
        'bytes' in src
          ? src.bytes
          : readEvidenceBytes(src.from, {
              maxBytes: DEFAULT_LIMITS.maxEntryBytes,
              fix: 'leave the folder alone while it is packed',
            });
      contents.set(name, bytes);
      entries.push({
        path: name,
        type: 'file',
        size: bytes.length,
        mode: src.mode,
        sha256: sha256Hex(bytes),
      });
    }
  }
  entries.sort((a, b) => compareNames(a.path, b.path));
  const manifest: PackManifest = {
    schema: 1,
    kind: 'agentguard-pack',
    name: meta.name,
    version: meta.version,
    registry: 'registry.yaml',
    families: meta.families,
    files: entries,
  };
  return { manifest, contents };
}

export async function writePackZip(
  out: string,
  manifest: PackManifest,
  contents: Map<string, Buffer>,
): Promise<Buffer> {
  const zip = new ZipFile();
  const bytes = manifestBytes(manifest);
  const opts = { mtime: FIXED_TIME, forceDosTimestamp: true, compress: true };
  zip.addBuffer(bytes, MANIFEST_PATH, { ...opts, mode: S_IFREG | 0o644 });
  for (const entry of manifest.files) {
    const data = contents.get(entry.path);
    if (data === undefined) throw new Error(`no content for ${entry.path}`);
    const mode = entry.type === 'symlink' ? S_IFLNK | 0o777 : S_IFREG | entry.mode;
    zip.addBuffer(data, entry.path, { ...opts, mode, compress: entry.type === 'file' });
  }
  zip.end();
  const tmp = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.tmp`);
  try {
    await new Promise<void>((resolve, reject) => {
      const stream = createWriteStream(tmp, { mode: 0o644 });
      stream.on('error', reject);
      zip.outputStream.on('error', reject);
      stream.on('close', () => resolve());
      zip.outputStream.pipe(stream);
    });
    renameSync(tmp, out);
  } finally {
    rmSync(tmp, { force: true });
  }
  return bytes;
}
