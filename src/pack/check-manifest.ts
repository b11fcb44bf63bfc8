import { errorMessage } from '../errors.js';
import { checkEntryName, linkRoot, linkStaysInside } from './entry-names.js';
import { type PackManifest, PackManifestSchema, rootDigest } from './manifest.js';
import type { PackProblem, ZipEntry } from './read-zip.js';

/*
 * The archive against its own manifest: every listed file present with the listed kind, size,
 * mode and SHA-256, nothing unlisted, no entry inside another that is a file or a link (a file
 * written through a link lands wherever the link points), and every link staying in its folder.
 * Pure: it judges what the scan found.
 */

export type CheckedPack =
  | { ok: true; manifest: PackManifest; manifestBytes: Buffer; root: string }
  | { ok: false; problems: PackProblem[] };

export function checkAgainstManifest(entries: ZipEntry[], manifestBytes: Buffer | null): CheckedPack {
  if (manifestBytes === null)
    return {
      ok: false,
      problems: [{ reason: 'has no agentguard-pack.json manifest: it is not an agentguard pack' }],
    };
  let raw: unknown;
  try {
    raw = JSON.parse(manifestBytes.toString('utf8'));
  } catch (err) {
    return {
      ok: false,
      problems: [{ entry: 'agentguard-pack.json', reason: `is not JSON (${errorMessage(err)})` }],
    };
  }
  const parsed = PackManifestSchema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues.map((i) => ({
        entry: 'agentguard-pack.json',
        reason: `field '${i.path.join('.')}' ${i.message}`,
      })),
    };
  const manifest = parsed.data;
  const problems: PackProblem[] = [];
  const listed = new Map<string, PackManifest['files'][number]>();
  for (const f of manifest.files) {
    const bad = checkEntryName(f.path);
    if (bad !== null) problems.push({ entry: f.path, reason: `is listed in the manifest but ${bad}` });
    else if (listed.has(f.path)) problems.push({ entry: f.path, reason: 'is listed twice in the manifest' });
    listed.set(f.path, f);
  }
  const found = new Map<string, ZipEntry>();
  for (const e of entries) {
    if (e.type === 'dir') continue;
    found.set(e.name, e);
    const want = listed.get(e.name);
    if (want === undefined) {
      problems.push({ entry: e.name, reason: 'is in the archive but not in the manifest' });
      continue;
    }
    if (want.type !== e.type) {
      problems.push({
        entry: e.name,
        reason: `is a ${e.type} in the archive but a ${want.type} in the manifest`,
      });
      continue;
    }
    if (e.sha256 !== want.sha256) {
      problems.push({
        entry: e.name,
        reason: 'does not match its SHA-256 in the manifest (its bytes were changed)',
      });
      continue;
    }
    if (e.type === 'file' && want.type === 'file') {
      if (e.size !== want.size)
        problems.push({ entry: e.name, reason: `is ${e.size} bytes, the manifest says ${want.size}` });
      if (e.executable !== (want.mode === 0o755))
        problems.push({ entry: e.name, reason: 'has a different executable bit than the manifest says' });
    }
    if (e.type === 'symlink' && want.type === 'symlink') {
      if (e.target !== want.target)
        problems.push({ entry: e.name, reason: 'links somewhere other than the manifest says' });
      else if (!linkStaysInside(e.name, e.target, linkRoot(e.name)))
        problems.push({
          entry: e.name,
          reason: `is a symlink to '${e.target}', which leaves its folder ${linkRoot(e.name)}/`,
        });
    }
  }
  for (const name of listed.keys())
    if (!found.has(name))
      problems.push({ entry: name, reason: 'is in the manifest but missing from the archive' });
  const folders = new Set<string>();
  for (const name of listed.keys()) {
    const parts = name.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  for (const e of entries) {
    if (e.type === 'dir' && !folders.has(e.name))
      problems.push({ entry: `${e.name}/`, reason: 'is a folder in the archive that holds no listed file' });
  }
  // A listed path used as a folder by another: `a` a link or file and `a/b` an entry.
  const names = [...found.keys(), ...listed.keys()];
  const leaves = new Set(names);
  for (const name of new Set(names)) {
    const parts = name.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (leaves.has(prefix)) {
        problems.push({
          entry: name,
          reason: `lies inside '${prefix}', which is a file or a link, not a folder`,
        });
        break;
      }
    }
  }
  return problems.length > 0
    ? { ok: false, problems }
    : { ok: true, manifest, manifestBytes, root: rootDigest(manifestBytes) };
}
