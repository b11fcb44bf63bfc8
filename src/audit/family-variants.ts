import semver from 'semver';
import type { ResolvedConfig } from '../config/schema.js';
import type { Reference } from '../registry/contract-file.js';
import type { ValidatedFamily } from '../registry/validate-registry.js';

/** The configs of every version the family's contract describes (its benchmark_versions range). */
export function contractConfigs(vf: ValidatedFamily, newestOnly: boolean): ResolvedConfig[] {
  const range = vf.contract?.benchmark_versions ?? '*';
  const versions = vf.family.versions.filter(
    (v) => semver.valid(v.version) !== null && semver.satisfies(v.version, range),
  );
  // Versions are newest first (loadRegistry sorts them).
  const picked = newestOnly ? versions.slice(0, 1) : versions;
  return picked.flatMap((v) => v.configs.flatMap((file) => vf.configs.get(file) ?? []));
}

export function appliesTo(ref: Reference, cfg: ResolvedConfig): boolean {
  return ref.variant === undefined || ref.variant === cfg.name;
}
