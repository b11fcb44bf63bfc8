import {
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import YAML from 'yaml';
import { InputError } from '../errors.js';
import { READ_LIMITS, readEvidenceBytes } from '../evidence/read.js';
import { IMPORTED_MARK, type ImportedMark } from '../policy/pack-provenance.js';
import { MANIFEST_PATH, PACK_REGISTRY, rootDigest } from './manifest.js';
import { MAX_MANIFEST_BYTES } from './read-zip.js';
import { type PackVerdict, type VerifyOptions, verifyPack } from './verify-pack.js';

/*
 * Import a pack: verify it completely (archive, trust, consistency), then, with the verified folder
 * still in hand, check every place the import would write before writing anything — an existing
 * file is refused without --force, and a link or file where the pack needs a folder is refused
 * always (writing through it would land outside the target). Only then are the verified regular
 * files and links copied in. A refused import has written nothing; nothing from the pack is run.
 * Last, the import marks itself (IMPORTED_MARK at the root and beside every config), so that a run
 * of an imported config knows it is not the operator's and keeps the isolation floor.
 */

export type ImportOptions = VerifyOptions & {
  into: string;
  force?: boolean;
  /** Also write the pack's registry here (it must be in the target folder or a folder above it). */
  registryOut?: string;
  /** Also write a suite file of the newest configs of every family here. */
  suiteOut?: string;
};

export type ImportResult = { verdict: PackVerdict; written: number; into: string };

export async function importPack(file: string, opts: ImportOptions): Promise<ImportResult> {
  const into = resolveTarget(opts.into);
  const registryOut = opts.registryOut === undefined ? undefined : path.resolve(opts.registryOut);
  const suiteOut = opts.suiteOut === undefined ? undefined : path.resolve(opts.suiteOut);
  if (registryOut !== undefined) {
    const rel = path.relative(path.dirname(registryOut), into);
    if (rel.startsWith('..') || path.isAbsolute(rel))
      throw new InputError(
        `--registry-out ${registryOut}: a registry's configs must lie in its own folder, and ${into} does not. Fix: write it inside ${into} or a folder above it.`,
      );
  }
  let written = 0;
  const verdict = await verifyPack(file, {
    ...opts,
    inspect: (dir, _registry, validation) => {
      const names = [MANIFEST_PATH, ...readManifestNames(dir)];
      const configDirs = [
        ...new Set(
          validation.families.flatMap((v) =>
            [...v.configs.keys()].map((f) => path.join(into, path.relative(dir, path.dirname(f)))),
          ),
        ),
      ];
      const plan = planWrites(into, names, opts.force === true, [registryOut, suiteOut]);
      const extra: { file: string; text: string }[] = [];
      if (registryOut !== undefined)
        extra.push({ file: registryOut, text: registryText(dir, into, registryOut) });
      if (suiteOut !== undefined) extra.push({ file: suiteOut, text: suiteText(dir, into, suiteOut) });
      // Every check is done; from here on, write.
      for (const name of plan) {
        copyEntry(dir, into, name);
        written++;
      }
      const mark = markText(dir, file);
      for (const folder of [into, ...configDirs])
        extra.push({ file: path.join(folder, IMPORTED_MARK), text: mark });
      for (const { file: out, text } of extra) {
        mkdirSync(path.dirname(out), { recursive: true });
        // A rename replaces whatever is there (a link too); it never writes through it.
        const tmp = `${out}.${process.pid}.tmp`;
        writeFileSync(tmp, text, { flag: 'wx' });
        renameSync(tmp, out);
      }
    },
  });
  return { verdict, written, into };
}

/** The provenance mark: which pack, by its root digest, from which archive. */
/** A file of the extracted pack: a regular file inside it, no link followed, bounded. */
function extracted(dir: string, name: string, maxBytes: number): Buffer {
  return readEvidenceBytes(path.join(dir, name), {
    within: dir,
    maxBytes,
    fix: 'import the pack again from a verified archive',
  });
}

function markText(dir: string, archive: string): string {
  const bytes = extracted(dir, MANIFEST_PATH, MAX_MANIFEST_BYTES);
  const manifest = JSON.parse(bytes.toString('utf8')) as { name: string; version: string };
  const mark: ImportedMark = {
    pack: manifest.name,
    version: manifest.version,
    root: rootDigest(bytes),
    archive: path.resolve(archive),
  };
  return `${JSON.stringify(mark, null, 2)}\n`;
}

function resolveTarget(into: string): string {
  const abs = path.resolve(into);
  return existsSync(abs) ? realpathSync(abs) : abs;
}

function readManifestNames(dir: string): string[] {
  const manifest = JSON.parse(extracted(dir, MANIFEST_PATH, MAX_MANIFEST_BYTES).toString('utf8')) as {
    files: { path: string }[];
  };
  return manifest.files.map((f) => f.path);
}

/** The names to write, after refusing every conflict; throws before anything is written. */
function planWrites(
  into: string,
  names: string[],
  force: boolean,
  outputs: (string | undefined)[],
): string[] {
  const existing: string[] = [];
  const blocked: string[] = [];
  const checkedDirs = new Set<string>();
  const top = lstatOrNull(into);
  if (top !== null && !top.isDirectory()) blocked.push(`${into} is not a folder`);
  const packFiles = new Set(names.map((n) => path.join(into, ...n.split('/'))));
  for (const out of outputs)
    if (out !== undefined && packFiles.has(out)) blocked.push(`${out} is a file of the pack itself`);
  for (const name of names) {
    const parts = name.split('/');
    let at = into;
    for (const part of parts.slice(0, -1)) {
      at = path.join(at, part);
      if (checkedDirs.has(at)) continue;
      checkedDirs.add(at);
      const st = lstatOrNull(at);
      if (st !== null && !st.isDirectory())
        blocked.push(
          `${at} is ${st.isSymbolicLink() ? 'a symlink' : 'a file'} where the pack needs a folder`,
        );
    }
    const target = path.join(into, ...parts);
    const st = lstatOrNull(target);
    if (st?.isDirectory()) blocked.push(`${target} is a folder where the pack has a file`);
    else if (st !== null) existing.push(target);
  }
  for (const out of outputs) if (out !== undefined && lstatOrNull(out) !== null) existing.push(out);
  if (blocked.length > 0)
    throw new InputError(
      `cannot import into ${into}: ${blocked.slice(0, 5).join('; ')}${blocked.length > 5 ? ` (and ${blocked.length - 5} more)` : ''}. Fix: import into an empty folder, and name --registry-out and --suite-out files the pack does not hold.`,
    );
  if (existing.length > 0 && !force)
    throw new InputError(
      `cannot import into ${into}: ${existing.length} file${existing.length === 1 ? '' : 's'} already exist${existing.length === 1 ? 's' : ''} (${existing.slice(0, 3).join(', ')}${existing.length > 3 ? ', …' : ''}). Fix: import into an empty folder, or pass --force to replace them.`,
    );
  return names;
}

function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** Copy one verified entry; an existing file (only with --force) is replaced by a rename, never written through. */
function copyEntry(dir: string, into: string, name: string): void {
  const from = path.join(dir, ...name.split('/'));
  const to = path.join(into, ...name.split('/'));
  mkdirSync(path.dirname(to), { recursive: true });
  const tmp = path.join(path.dirname(to), `.${path.basename(to)}.agentguard-import`);
  rmSync(tmp, { force: true });
  if (lstatSync(from).isSymbolicLink()) symlinkSync(readlinkSync(from), tmp);
  else copyFileSync(from, tmp, constants.COPYFILE_EXCL);
  if (lstatOrNull(to) !== null) unlinkSync(to);
  renameSync(tmp, to);
}

type RawRegistry = { families: { contract?: string; versions: { version: string; configs: string[] }[] }[] };

function readRawRegistry(dir: string): RawRegistry {
  return YAML.parse(extracted(dir, PACK_REGISTRY, READ_LIMITS.json).toString('utf8')) as RawRegistry;
}

/** The pack's registry with its paths made relative to `out`'s folder. */
function registryText(dir: string, into: string, out: string): string {
  const prefix = path.relative(path.dirname(out), into).split(path.sep).join('/');
  const join = (p: string) => (prefix === '' ? p : `${prefix}/${p}`);
  const raw = readRawRegistry(dir);
  const families = raw.families.map((f) => ({
    ...f,
    ...(f.contract === undefined ? {} : { contract: join(f.contract) }),
    versions: f.versions.map((v) => ({ ...v, configs: v.configs.map(join) })),
  }));
  return `# Imported by 'agentguard pack import' into ${into}.\n${YAML.stringify({ ...raw, families }, { lineWidth: 0 })}`;
}

/** An ordinary suite file of each family's newest version's configs, relative to `out`'s folder. */
function suiteText(dir: string, into: string, out: string): string {
  const raw = readRawRegistry(dir);
  const configs = raw.families.flatMap((f) => {
    const newest = [...f.versions].sort((a, b) => semver.rcompare(a.version, b.version))[0];
    return (newest?.configs ?? []).map((c) =>
      path
        .relative(path.dirname(out), path.join(into, ...c.split('/')))
        .split(path.sep)
        .join('/'),
    );
  });
  return `# Written by 'agentguard pack import' from the pack imported into ${into}.\n${YAML.stringify({ configs })}`;
}
