import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { InputError } from '../errors.js';
import { MANIFEST_PATH, type PackManifest } from './manifest.js';

/*
 * Write a verified pack's files into a fresh, private folder. The archive is read a second time, so
 * every file is hashed again as it is written and compared with the manifest: an archive swapped
 * between verification and extraction is caught, not trusted. Only listed regular files and listed
 * links (already checked to stay in their folder) are written; nothing is executed, and no mode
 * but 0644/0755 is ever set. Links are made last, so no file is ever written through one.
 */

export async function extractVerified(
  file: string,
  manifest: PackManifest,
  manifestBytes: Buffer,
  dest: string,
): Promise<void> {
  const listed = new Map(manifest.files.map((f) => [f.path, f]));
  const links: { name: string; target: string }[] = [];
  const written = new Set<string>();
  writeFileSync(path.join(dest, MANIFEST_PATH), manifestBytes, { mode: 0o644, flag: 'wx' });
  const zip = await yauzl.openPromise(file, {
    lazyEntries: true,
    decodeStrings: false,
    validateEntrySizes: true,
    autoClose: false,
  });
  try {
    for await (const e of zip.eachEntry()) {
      const name = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, true);
      const want = listed.get(name);
      if (want === undefined || written.has(name)) continue;
      written.add(name);
      if (want.type === 'symlink') {
        links.push({ name, target: want.target });
        continue;
      }
      const to = path.join(dest, ...name.split('/'));
      mkdirSync(path.dirname(to), { recursive: true, mode: 0o755 });
      const hash = createHash('sha256');
      const stream = await zip.openReadStreamPromise(e);
      stream.on('data', (c: Buffer) => hash.update(c));
      await pipeline(stream, createWriteStream(to, { flags: 'wx', mode: want.mode }));
      if (hash.digest('hex') !== want.sha256)
        throw new InputError(
          `${file}: entry '${name}' changed between verification and extraction. Fix: do not modify the pack while it is imported.`,
        );
    }
  } finally {
    zip.close();
  }
  for (const name of listed.keys())
    if (!written.has(name))
      throw new InputError(`${file}: entry '${name}' disappeared between verification and extraction.`);
  for (const { name, target } of links) {
    const to = path.join(dest, ...name.split('/'));
    mkdirSync(path.dirname(to), { recursive: true, mode: 0o755 });
    symlinkSync(target, to);
  }
}
