import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import semver from 'semver';
import { z } from 'zod';
import { loadYamlFile, type YamlFileKind } from '../config/load-yaml-file.js';
import { ConfigError, type ConfigIssue, InputError } from '../errors.js';
import { PACK_NAME } from './build-pack.js';
import { type ImportOptions, type ImportResult, importPack } from './import-pack.js';
import type { PackProblem } from './read-zip.js';
import { defaultSignatureFile, type PackVerdict, type VerifyOptions, verifyPack } from './verify-pack.js';

/*
 * A pack index: a static YAML/JSON catalogue of pack versions in a local folder — no server. Each
 * entry names a pack and a strict semver version, the archive's SHA-256 and where it is: a local
 * path (relative to the index, inside its folder) and optionally a signature file, or only a URL,
 * which is metadata: agentguard never downloads anything from an index.
 */

const EntrySchema = z
  .strictObject({
    name: z.string().regex(PACK_NAME, "must be lower-case letters, digits, '.', '_' or '-'"),
    version: z.string().min(1),
    description: z.string().optional(),
    /** The archive, relative to the index file. */
    path: z.string().min(1).optional(),
    /** SHA-256 of the archive's bytes (hex). */
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits')
      .optional(),
    /** Signature file, relative to the index (default: the archive's path + .sig, when it exists). */
    signatures: z.string().min(1).optional(),
    /** Where the pack is published. Metadata only: never fetched. */
    url: z.string().url().optional(),
  })
  .refine((e) => e.path !== undefined || e.url !== undefined, { message: 'needs a path (or at least a url)' })
  .refine((e) => e.path === undefined || e.sha256 !== undefined, {
    message: 'a local path needs its sha256',
  });

export const PackIndexSchema = z.strictObject({
  schema: z.literal(1, { error: 'must be 1, the only index schema this agentguard reads' }),
  packs: z.array(EntrySchema),
});

export type IndexEntry = z.output<typeof EntrySchema> & { archive?: string; signatureFile?: string };
export type PackIndex = { file: string; entries: IndexEntry[] };

const INDEX_FILE: YamlFileKind = {
  what: 'pack index',
  docs: 'docs/packs.md',
  notMapping: { message: 'must be a YAML or JSON mapping', fix: 'see docs/packs.md for the index format' },
};

export function loadPackIndex(file: string): PackIndex {
  const abs = path.resolve(file);
  const loaded = loadYamlFile(abs, PackIndexSchema, INDEX_FILE);
  if (!loaded.ok) throw new ConfigError(loaded.issues);
  const dir = path.dirname(abs);
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  const local = (field: string, rel: string): string | undefined => {
    const target = path.resolve(dir, rel);
    const inside = path.relative(dir, target);
    if (path.isAbsolute(rel) || inside.startsWith('..')) {
      issues.push({
        file: abs,
        field,
        message: `'${rel}' is outside the index's folder`,
        fix: "write it relative to the index file, without '..'",
      });
      return undefined;
    }
    return target;
  };
  const entries = loaded.value.packs.map((e, i) => {
    const at = `packs[${i}]`;
    if (semver.valid(e.version) === null || semver.clean(e.version) !== e.version)
      issues.push({
        file: abs,
        field: `${at}.version`,
        message: `'${e.version}' is not a strict semantic version`,
        fix: "write MAJOR.MINOR.PATCH, e.g. '1.0.0'",
      });
    const key = `${e.name}@${e.version}`;
    if (seen.has(key))
      issues.push({
        file: abs,
        field: `${at}.version`,
        message: `${key} appears twice`,
        fix: 'list each version once',
      });
    seen.add(key);
    const entry: IndexEntry = { ...e };
    if (e.path !== undefined) {
      const archive = local(`${at}.path`, e.path);
      if (archive !== undefined) entry.archive = archive;
    }
    if (e.signatures !== undefined) {
      const sig = local(`${at}.signatures`, e.signatures);
      if (sig !== undefined) entry.signatureFile = sig;
    }
    return entry;
  });
  if (issues.length > 0) throw new ConfigError(issues);
  return { file: abs, entries };
}

export async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

export type EntryVerdict =
  | { entry: IndexEntry; status: 'remote-only' }
  | { entry: IndexEntry; status: 'verified'; verdict: PackVerdict }
  | { entry: IndexEntry; status: 'failed'; problems: PackProblem[] };

/**
 * Check one local entry: the archive is copied to a private file first, so the bytes whose digest
 * is checked are the bytes that are then verified (and imported), whatever happens to the original.
 */
async function withEntryArchive<T>(
  entry: IndexEntry,
  use: (archive: string, sigFile: string | undefined) => Promise<T>,
): Promise<T | { problems: PackProblem[] }> {
  if (entry.archive === undefined) throw new Error('entry without an archive');
  if (!existsSync(entry.archive) || !statSync(entry.archive).isFile())
    return { problems: [{ reason: `${entry.archive} does not exist or is not a file` }] };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'agentguard-index-'));
  try {
    const copy = path.join(tmp, 'pack.zip');
    copyFileSync(entry.archive, copy);
    const digest = await fileSha256(copy);
    if (digest !== entry.sha256)
      return {
        problems: [{ reason: `${entry.archive} has SHA-256 ${digest}, the index says ${entry.sha256}` }],
      };
    const defaultSig = defaultSignatureFile(entry.archive);
    const sigFile = entry.signatureFile ?? (existsSync(defaultSig) ? defaultSig : undefined);
    return await use(copy, sigFile);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function verifyIndexEntry(entry: IndexEntry, opts: VerifyOptions): Promise<EntryVerdict> {
  if (entry.archive === undefined) return { entry, status: 'remote-only' };
  const r = await withEntryArchive(entry, (archive, sigFile) =>
    verifyPack(archive, {
      ...opts,
      expect: { name: entry.name, version: entry.version },
      ...(sigFile === undefined ? {} : { signatures: sigFile }),
    }),
  );
  if ('problems' in r && !('ok' in r)) return { entry, status: 'failed', problems: r.problems };
  const verdict = r as PackVerdict;
  return verdict.ok
    ? { entry, status: 'verified', verdict }
    : { entry, status: 'failed', problems: verdict.problems };
}

/** The entry `spec` (NAME or NAME@RANGE) selects: the highest local version in the range. */
export function resolveSpec(index: PackIndex, spec: string): IndexEntry {
  const at = spec.indexOf('@');
  const name = at === -1 ? spec : spec.slice(0, at);
  const range = at === -1 ? '*' : spec.slice(at + 1);
  if (semver.validRange(range) === null)
    throw new InputError(`'${range}' is not a semver range. Fix: write NAME@RANGE, e.g. ${name}@^1.2.0.`);
  const named = index.entries.filter((e) => e.name === name);
  if (named.length === 0)
    throw new InputError(
      `${index.file} has no pack named '${name}'. Fix: one of ${[...new Set(index.entries.map((e) => e.name))].join(', ') || '(none)'}.`,
    );
  const local = named.filter((e) => e.archive !== undefined);
  const best = semver.maxSatisfying(
    local.map((e) => e.version),
    range,
  );
  if (best === null) {
    const remote = semver.maxSatisfying(
      named.filter((e) => e.archive === undefined).map((e) => e.version),
      range,
    );
    if (remote !== null)
      throw new InputError(
        `${name}@${remote} is listed in ${index.file} only with a URL; agentguard does not download packs. Fix: fetch the archive yourself and give the entry a local path.`,
      );
    throw new InputError(
      `no local version of '${name}' satisfies '${range}' in ${index.file} (there are: ${named.map((e) => e.version).join(', ')}). Fix: widen the range.`,
    );
  }
  const entry = local.find((e) => e.version === best);
  if (entry === undefined) throw new Error('maxSatisfying returned a version not listed');
  return entry;
}

export async function installFromIndex(
  index: PackIndex,
  spec: string,
  opts: ImportOptions,
): Promise<{ entry: IndexEntry; result: ImportResult | { problems: PackProblem[] } }> {
  const entry = resolveSpec(index, spec);
  const result = await withEntryArchive(entry, (archive, sigFile) =>
    importPack(archive, {
      ...opts,
      expect: { name: entry.name, version: entry.version },
      ...(sigFile === undefined ? {} : { signatures: sigFile }),
    }),
  );
  return { entry, result };
}
