import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { loadConfigOrThrow } from '../config/load.js';
import type { ResolvedConfig } from '../config/schema.js';
import { InputError } from '../errors.js';
import type { Registry, RegistryFamily } from '../registry/registry-file.js';
import { type PackManifest, rootDigest } from './manifest.js';
import { planPack } from './plan-pack.js';
import { verifyPack } from './verify-pack.js';
import { packManifest, writePackZip } from './write-zip.js';

/*
 * Build a pack from registry families, then prove it: the written archive goes through the full
 * verification a consumer runs, and every packed config must resolve to the same config as its
 * original except for its paths. A pack that fails either is deleted, never left half-good.
 */

export type BuiltPack = { file: string; manifest: PackManifest; root: string; size: number };

export const PACK_NAME = /^[a-z0-9][a-z0-9._-]*$/;

export async function buildPack(
  registry: Registry,
  families: RegistryFamily[],
  out: string,
  meta: { name: string; version: string },
  step?: (label: string) => void,
): Promise<BuiltPack> {
  if (!PACK_NAME.test(meta.name))
    throw new InputError(
      `'${meta.name}' is not a pack name. Fix: use lower-case letters, digits, '.', '_' or '-' (--name).`,
    );
  if (semver.valid(meta.version) === null || semver.clean(meta.version) !== meta.version)
    throw new InputError(
      `'${meta.version}' is not a strict semantic version. Fix: pass --pack-version MAJOR.MINOR.PATCH, e.g. 1.0.0.`,
    );
  const plan = planPack(registry, families, step);
  const { manifest, contents } = packManifest(plan.files, { ...meta, families: plan.families });
  const file = path.resolve(out);
  step?.(`writing the archive: ${contents.size} files`);
  const bytes = await writePackZip(file, manifest, contents);
  try {
    const byPackPath = new Map([...plan.configs].map(([orig, packed]) => [packed, orig]));
    const verdict = await verifyPack(file, {
      ...(step ? { step: (label: string) => step(`verifying the written pack: ${label}`) } : {}),
      inspect: (dir, _registry, validation) => {
        for (const v of validation.families)
          for (const [packedFile, packed] of v.configs) {
            const rel = path.relative(dir, packedFile).split(path.sep).join('/');
            const orig = byPackPath.get(rel);
            if (orig === undefined)
              throw new InputError(`the built pack holds a config it did not plan: ${rel}`);
            const a = withoutPaths(loadConfigOrThrow(orig));
            const b = withoutPaths(packed);
            if (a !== b)
              throw new InputError(
                `${orig}: the packed copy (${rel}) does not load to the same config; a pack cannot carry it faithfully.`,
              );
          }
      },
    });
    if (!verdict.ok)
      throw new InputError(
        `the built pack failed its own verification: ${verdict.problems.map((p) => `${p.entry ?? ''} ${p.reason}`).join('; ')}`,
      );
  } catch (err) {
    rmSync(file, { force: true });
    throw err;
  }
  return { file, manifest, root: rootDigest(bytes), size: statSync(file).size };
}

/** A resolved config as JSON without the keys that hold host paths (they differ by design). */
function withoutPaths(cfg: ResolvedConfig): string {
  const {
    config_path: _p,
    config_dir: _d,
    repo: _r,
    solution: _s,
    prompt_file: _f,
    model_script: _m,
    skills: _k,
    ...rest
  } = cfg;
  const profile =
    cfg.agent_profile !== undefined && path.isAbsolute(cfg.agent_profile)
      ? path.basename(cfg.agent_profile)
      : cfg.agent_profile;
  // Paths named from the config's folder are compared from it (a toolchain is the host's own).
  const fromConfig = (p: string) => path.relative(cfg.config_dir, p);
  const commandFromConfig = (argv: string[] | undefined) =>
    argv?.map((a) =>
      a === cfg.config_dir || a.startsWith(`${cfg.config_dir}/`)
        ? `{config_dir}${a.slice(cfg.config_dir.length)}`
        : a,
    );
  return JSON.stringify({
    ...rest,
    mounts: cfg.mounts.map((m) => ({
      ...m,
      path: m.field.startsWith('toolchains') ? m.path : fromConfig(m.path),
    })),
    test_command: commandFromConfig(cfg.test_command),
    setup_command: commandFromConfig(cfg.setup_command),
    agent_profile: profile,
    security: { ...cfg.security, rules: cfg.security.rules.map((r) => path.basename(r)) },
  });
}
