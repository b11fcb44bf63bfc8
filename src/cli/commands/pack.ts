import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../errors.js';
import { buildPack } from '../../pack/build-pack.js';
import { importPack } from '../../pack/import-pack.js';
import { addSignature, readSigningKey, signRoot } from '../../pack/signing.js';
import { defaultSignatureFile, verifyPack } from '../../pack/verify-pack.js';
import { loadRegistry } from '../../registry/registry-file.js';
import type { CliIO } from '../io.js';
import { stepProgress } from '../phase-progress.js';
import { UsageError } from '../usage-error.js';
import {
  type PackOptions,
  printIsolation,
  printProblems,
  reportImport,
  trustLine,
  verdictJson,
  verifyOptions,
} from './pack-output.js';
import { registryFile, selectFamilies } from './registry.js';

function requireArchive(file: string): string {
  const abs = path.resolve(file);
  if (!existsSync(abs) || !statSync(abs).isFile())
    throw new InputError(`${abs} does not exist or is not a file. Fix: check the path of the pack.`);
  return abs;
}

export async function packBuild(io: CliIO, opts: PackOptions): Promise<number> {
  if (opts.out === undefined)
    throw new UsageError("'pack build' needs -o PACK.zip. Fix: add -o benchmarks.zip.");
  const outDir = path.dirname(path.resolve(opts.out));
  if (!existsSync(outDir) || !statSync(outDir).isDirectory())
    throw new UsageError(`-o ${opts.out}: the folder ${outDir} does not exist. Fix: create it first.`);
  const registry = loadRegistry(registryFile(opts));
  const families = selectFamilies(registry, opts);
  if (families.length === 0) throw new UsageError('the filter selects no family. Fix: check --family.');
  const name = opts.name ?? path.basename(path.dirname(registry.file)).toLowerCase();
  const started = Date.now();
  const progress = stepProgress(io, { command: 'pack build', json: opts.json === true });
  const built = await buildPack(
    registry,
    families,
    opts.out,
    { name, version: String(opts.packVersion ?? '0.0.0') },
    progress.step,
  ).finally(progress.stop);
  const ms = Date.now() - started;
  const summary = {
    file: built.file,
    name: built.manifest.name,
    version: built.manifest.version,
    root: built.root,
    families: built.manifest.families.length,
    files: built.manifest.files.length,
    size: built.size,
    ms,
  };
  if (opts.json) io.out(JSON.stringify(summary, null, 2));
  else
    io.out(
      `${built.file}: ${summary.name}@${summary.version}, ${summary.families} families, ${summary.files} files, ${summary.size} bytes, root ${built.root}`,
    );
  return 0;
}

export async function packVerify(io: CliIO, file: string, opts: PackOptions): Promise<number> {
  const abs = requireArchive(file);
  const progress = stepProgress(io, { command: 'pack verify', json: opts.json === true });
  const verdict = await verifyPack(abs, { ...verifyOptions(opts), step: progress.step }).finally(
    progress.stop,
  );
  if (opts.json) io.out(JSON.stringify(verdictJson(abs, verdict), null, 2));
  else printIsolation(io, verdict.isolation, opts.allowBelowFloor === true);
  if (!verdict.ok) {
    if (!opts.json) printProblems(io, abs, verdict.problems);
    io.err(
      `agentguard: ${abs}: refused (${verdict.stage}). Fix: do not use this pack; ask its author for an intact, signed one.`,
    );
    return 2;
  }
  if (!opts.json)
    io.out(
      `${abs}: valid pack ${verdict.manifest.name}@${verdict.manifest.version}, ${verdict.files} files, ${verdict.bytes} bytes, root ${verdict.root}; ${trustLine(verdict.trust)}`,
    );
  return 0;
}

export async function packImport(io: CliIO, file: string, opts: PackOptions): Promise<number> {
  if (opts.into === undefined)
    throw new UsageError("'pack import' needs --into DIR. Fix: add --into benchmarks-imported.");
  const abs = requireArchive(file);
  const progress = stepProgress(io, { command: 'pack import', json: opts.json === true });
  const r = await importPack(abs, {
    ...verifyOptions(opts),
    step: progress.step,
    into: opts.into,
    force: opts.force === true,
    ...(opts.registryOut === undefined ? {} : { registryOut: opts.registryOut }),
    ...(opts.suiteOut === undefined ? {} : { suiteOut: opts.suiteOut }),
  }).finally(progress.stop);
  return reportImport(io, abs, r.verdict, r.into, r.written, opts);
}

export async function packSign(io: CliIO, file: string, opts: PackOptions): Promise<number> {
  if (opts.key === undefined)
    throw new UsageError("'pack sign' needs --key FILE. Fix: make one with 'agentguard keys generate'.");
  if (opts.hmac && opts.keyId === undefined)
    throw new UsageError("'pack sign --hmac' needs --key-id ID, the id trust policies give the shared key.");
  if (!opts.hmac && opts.keyId !== undefined)
    throw new UsageError(
      '--key-id names a shared HMAC key; an Ed25519 key id is computed from the key. Fix: add --hmac or drop --key-id.',
    );
  const abs = requireArchive(file);
  const key = readSigningKey(path.resolve(opts.key), opts.hmac ? String(opts.keyId) : undefined);
  const verdict = await verifyPack(abs);
  if (!verdict.ok) {
    printProblems(io, abs, verdict.problems);
    io.err(`agentguard: ${abs}: refused to sign a pack that does not verify.`);
    return 2;
  }
  const out = path.resolve(opts.out ?? defaultSignatureFile(abs));
  const sigs = addSignature(out, verdict.root, signRoot(verdict.root, key));
  if (opts.json)
    io.out(
      JSON.stringify(
        { file: abs, signatures: out, root: verdict.root, key_id: key.id, algorithm: key.algorithm },
        null,
        2,
      ),
    );
  else
    io.out(
      `${out}: signed ${verdict.root} with ${key.algorithm} key ${key.id} (${sigs.signatures.length} signature${sigs.signatures.length === 1 ? '' : 's'} in the file)`,
    );
  return 0;
}
