import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentGuardError, ConfigError } from '../errors.js';
import { allowBreach, breachVerb, type IsolationFloor } from '../policy/isolation-floor.js';
import { loadRegistry, type Registry } from '../registry/registry-file.js';
import { type RegistryValidation, validateRegistry } from '../registry/validate-registry.js';
import { checkAgainstManifest } from './check-manifest.js';
import { type ConfigIsolation, configIsolation } from './config-isolation.js';
import { extractVerified } from './extract.js';
import { PACK_REGISTRY, type PackManifest } from './manifest.js';
import { referencedPaths } from './plan-pack.js';
import { DEFAULT_LIMITS, type PackLimits, type PackProblem, scanZip } from './read-zip.js';
import { readSignatureFile, type SignatureFile } from './signing.js';
import { evaluateTrust, type TrustPolicy, type TrustVerdict, trustFailure } from './trust-policy.js';

/*
 * Verify a pack in three steps, each only when the one before passed:
 *   1. the archive, read without extracting: names, types, sizes, limits, hashes, manifest;
 *   2. the trust policy, when one is given: enough distinct trusted keys signed the root digest;
 *   3. consistency: the verified bytes are written to a private temporary folder (0700, removed on
 *      every path) because the registry, config, contract and rule loaders read files; there the
 *      registry is validated exactly as `registry validate` does, and every path a config resolves
 *      to must lie inside the pack; each config's isolation (sandbox, tracer, network, setup) is
 *      listed, and with a floor one below it refuses the pack (stage `isolation`).
 * Nothing from the pack is executed at any step.
 */

export type VerifyOptions = {
  limits?: PackLimits;
  trust?: TrustPolicy;
  /** Signature file (default: PACK.sig next to the pack). */
  signatures?: string;
  /** The name and version the pack must declare (an index entry's). */
  expect?: { name: string; version: string };
  /**
   * The operator's isolation floor (set unless --allow-below-floor): a config asking for less
   * refuses the pack before `inspect` (import) writes anything.
   */
  floor?: IsolationFloor;
  /** Each step as it starts (`reading the archive`…): the CLI's progress line. */
  step?: (label: string) => void;
  /** Called with the extracted, validated pack before its folder is removed (build's self-check, import). */
  inspect?: (dir: string, registry: Registry, validation: RegistryValidation) => Promise<void> | void;
};

export type PackVerdict =
  | {
      ok: true;
      manifest: PackManifest;
      root: string;
      trust?: TrustVerdict;
      files: number;
      bytes: number;
      configs: number;
      isolation: ConfigIsolation[];
    }
  | {
      ok: false;
      stage: 'archive' | 'trust' | 'consistency' | 'isolation';
      problems: PackProblem[];
      trust?: TrustVerdict;
      isolation?: ConfigIsolation[];
    };

export function defaultSignatureFile(pack: string): string {
  return `${pack}.sig`;
}

export async function verifyPack(file: string, opts: VerifyOptions = {}): Promise<PackVerdict> {
  opts.step?.('reading the archive');
  const scan = await scanZip(file, opts.limits ?? DEFAULT_LIMITS);
  if (!scan.ok) return { ok: false, stage: 'archive', problems: scan.problems };
  const checked = checkAgainstManifest(scan.entries, scan.manifest);
  if (!checked.ok) return { ok: false, stage: 'archive', problems: checked.problems };
  const { manifest, manifestBytes, root } = checked;
  if (
    opts.expect !== undefined &&
    (manifest.name !== opts.expect.name || manifest.version !== opts.expect.version)
  )
    return {
      ok: false,
      stage: 'archive',
      problems: [
        {
          entry: 'agentguard-pack.json',
          reason: `declares ${manifest.name}@${manifest.version}, not ${opts.expect.name}@${opts.expect.version}`,
        },
      ],
    };

  let trust: TrustVerdict | undefined;
  if (opts.trust !== undefined) {
    opts.step?.('checking the signatures');
    const sigFile = opts.signatures ?? defaultSignatureFile(file);
    const sigs: SignatureFile | null = existsSync(sigFile) ? readSignatureFile(sigFile) : null;
    trust = evaluateTrust(root, sigs, opts.trust);
    if (!trust.ok)
      return {
        ok: false,
        stage: 'trust',
        trust,
        problems: [
          {
            reason:
              trustFailure(file, opts.trust, trust).replace(`${file}: `, '') +
              (sigs === null ? ` (no signature file ${sigFile})` : ''),
          },
        ],
      };
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentguard-pack-'));
  let isolation: ConfigIsolation[];
  try {
    opts.step?.('extracting the files');
    await extractVerified(file, manifest, manifestBytes, dir);
    const checked = await checkConsistency(dir, manifest, opts);
    if (checked.problems.length > 0)
      return {
        ok: false,
        stage: checked.stage,
        problems: checked.problems,
        ...(trust ? { trust } : {}),
        isolation: checked.isolation,
      };
    isolation = checked.isolation;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const files = manifest.files.length;
  const bytes = manifest.files.reduce((n, f) => n + (f.type === 'file' ? f.size : 0), 0);
  const configs = manifest.files.filter((f) => /^configs\/.*\.ya?ml$/.test(f.path)).length;
  return { ok: true, manifest, root, files, bytes, configs, isolation, ...(trust ? { trust } : {}) };
}

type Consistency = {
  stage: 'consistency' | 'isolation';
  problems: PackProblem[];
  isolation: ConfigIsolation[];
};

async function checkConsistency(
  dir: string,
  manifest: PackManifest,
  opts: VerifyOptions,
): Promise<Consistency> {
  const failed = (problems: PackProblem[]): Consistency => ({
    stage: 'consistency',
    problems,
    isolation: [],
  });
  const inPack = (p: string) => {
    const rel = path.relative(dir, p);
    return rel.startsWith('..') || path.isAbsolute(rel) ? null : rel.split(path.sep).join('/');
  };
  // Messages from the loaders name files in the private folder; name them as pack entries instead.
  const local = (text: string) => text.replaceAll(`${dir}/`, '').replaceAll(dir, '.');
  let registry: Registry;
  try {
    registry = loadRegistry(path.join(dir, PACK_REGISTRY));
  } catch (err) {
    if (err instanceof ConfigError && err.issues.length > 0)
      return failed(
        err.issues.map((i) => ({
          entry: inPack(i.file) ?? PACK_REGISTRY,
          reason: local(`field '${i.field}': ${i.message}`),
        })),
      );
    if (err instanceof AgentGuardError) return failed([{ entry: PACK_REGISTRY, reason: local(err.message) }]);
    throw err;
  }
  const validation = validateRegistry(registry, undefined, (id, i, n) =>
    opts.step?.(`checking the benchmarks it holds: ${id} (${i + 1} of ${n})`),
  );
  const problems: PackProblem[] = validation.issues.map((i) => ({
    entry: inPack(i.file) ?? i.file,
    reason: local(`${i.field ? `field '${i.field}': ` : ''}${i.message}`),
  }));
  const listed = JSON.stringify(manifest.families);
  const actual = JSON.stringify(
    registry.families.map((f) => ({ id: f.id, versions: f.versions.map((v) => v.version) })),
  );
  if (listed !== actual)
    problems.push({
      entry: 'agentguard-pack.json',
      reason: `lists families ${listed}, but the pack's registry holds ${actual}`,
    });
  for (const v of validation.families)
    for (const [file, cfg] of v.configs) {
      const entry = inPack(file) ?? file;
      for (const { field, abs } of [{ field: 'repo', abs: cfg.repo }, ...referencedPaths(cfg)])
        if (inPack(abs) === null)
          problems.push({ entry, reason: `field '${field}' names ${abs}, outside the pack` });
    }
  if (problems.length > 0) return failed(problems);
  const isolation = [...new Map(validation.families.flatMap((v) => [...v.configs])).entries()]
    .map(([file, cfg]) => configIsolation(inPack(file) ?? file, cfg, dir))
    .sort((a, b) => a.config.localeCompare(b.config));
  const below = opts.floor === undefined ? [] : belowFloor(isolation, opts.floor, manifest);
  if (below.length > 0) return { stage: 'isolation', problems: below, isolation };
  // What the caller does with the verified folder throws its own errors (the folder is still removed).
  if (opts.inspect !== undefined) await opts.inspect(dir, registry, validation);
  return { stage: 'consistency', problems: [], isolation };
}

/** Each config's breaches of the floor, naming the pack, the field and the operator's flag. */
function belowFloor(
  isolation: ConfigIsolation[],
  floor: IsolationFloor,
  manifest: PackManifest,
): PackProblem[] {
  return isolation.flatMap((i) =>
    i.breaches.map((b) => ({
      entry: i.config,
      reason: `field '${b.field}': ${floor.input} (${manifest.name}@${manifest.version}) ${breachVerb(b)}: ${b.what}; an operator who trusts it can allow it ${allowBreach(b, floor.allowFlag)}`,
    })),
  );
}
