import { createHash } from 'node:crypto';
import { z } from 'zod';
import { PACK_MANIFEST } from '../policy/pack-provenance.js';

/*
 * The pack manifest: the one file inside a pack that says what else is in it. Every other entry
 * is listed with its kind, size, mode and SHA-256; the root digest is the SHA-256 of the
 * manifest's exact bytes, so one digest (the thing a signature covers) pins every byte of the
 * pack. No timestamps, no host names: the same input gives the same manifest and the same digest.
 */

export const MANIFEST_PATH = PACK_MANIFEST;
export const MANIFEST_SCHEMA = 1;
/** Where the pack's registry sits, relative to the pack root. */
export const PACK_REGISTRY = 'registry.yaml';

const SHA256 = /^[0-9a-f]{64}$/;

const FileEntrySchema = z.strictObject({
  path: z.string().min(1),
  type: z.literal('file'),
  size: z.number().int().nonnegative(),
  /** 0o644 or 0o755: a pack never carries other permission bits. */
  mode: z.union([z.literal(0o644), z.literal(0o755)]),
  sha256: z.string().regex(SHA256),
});

const SymlinkEntrySchema = z.strictObject({
  path: z.string().min(1),
  type: z.literal('symlink'),
  /** The link's target, relative to the link's folder. */
  target: z.string().min(1),
  /** SHA-256 of the target text (the bytes of the zip entry). */
  sha256: z.string().regex(SHA256),
});

export const PackManifestSchema = z.strictObject({
  schema: z.literal(MANIFEST_SCHEMA, {
    error: `must be ${MANIFEST_SCHEMA}, the only pack schema this agentguard reads`,
  }),
  kind: z.literal('agentguard-pack'),
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  version: z.string().min(1),
  registry: z.literal(PACK_REGISTRY),
  families: z.array(z.strictObject({ id: z.string().min(1), versions: z.array(z.string().min(1)) })),
  files: z.array(z.discriminatedUnion('type', [FileEntrySchema, SymlinkEntrySchema])),
});

export type PackManifest = z.output<typeof PackManifestSchema>;
export type PackFileEntry = PackManifest['files'][number];

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The manifest's canonical bytes: files sorted by path, two-space JSON, one trailing newline. */
export function manifestBytes(manifest: PackManifest): Buffer {
  const files = [...manifest.files].sort((a, b) => compareNames(a.path, b.path));
  return Buffer.from(`${JSON.stringify({ ...manifest, files }, null, 2)}\n`);
}

/** The root digest of a pack: what signatures sign and indexes may quote. */
export function rootDigest(manifest: Uint8Array): string {
  return `sha256:${sha256Hex(manifest)}`;
}

/** Byte order of UTF-8 names: the same order on every machine and locale. */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
