import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { formatIssue } from '../../errors.js';
import { packageRoot } from '../../package-root.js';
import {
  loadRegistry,
  type Registry,
  type RegistryFamily,
  SHIPPED_REGISTRY,
} from '../../registry/registry-file.js';
import { validateRegistry } from '../../registry/validate-registry.js';
import { renderTable } from '../../reports/table.js';
import type { CliIO } from '../io.js';
import { UsageError } from '../usage-error.js';

type Filter = { family?: string | string[]; category?: string; difficulty?: string; tag?: string };
type RegistryOptions = Filter & { registry?: string; json?: boolean; out?: string };

export function registryFile(opts: { registry?: string }): string {
  return opts.registry ?? path.join(packageRoot(), SHIPPED_REGISTRY);
}

/** The families a filter selects, in registry order; an unknown --family is refused. */
export function selectFamilies(registry: Registry, filter: Filter): RegistryFamily[] {
  const wanted = filter.family === undefined ? [] : [filter.family].flat().map(String);
  for (const id of wanted)
    if (!registry.families.some((f) => f.id === id))
      throw new UsageError(
        `${registry.file} has no family '${id}'. Fix: 'agentguard registry list' shows the families.`,
      );
  return registry.families.filter(
    (f) =>
      (wanted.length === 0 || wanted.includes(f.id)) &&
      (filter.category === undefined || f.category === filter.category) &&
      (filter.difficulty === undefined || f.difficulty === filter.difficulty) &&
      (filter.tag === undefined || f.tags.includes(filter.tag)),
  );
}

export function registryList(io: CliIO, opts: RegistryOptions): number {
  const registry = loadRegistry(registryFile(opts));
  const families = selectFamilies(registry, opts);
  const rel = (f: string) => path.relative(path.dirname(registry.file), f);
  if (opts.json) {
    io.out(
      JSON.stringify(
        families.map((f) => ({
          ...f,
          contract: f.contract === undefined ? null : rel(f.contract),
          versions: f.versions.map((v) => ({ version: v.version, configs: v.configs.map(rel) })),
        })),
        null,
        2,
      ),
    );
    return 0;
  }
  const rows = families.map((f) => [
    f.id,
    f.versions.map((v) => v.version).join(', '),
    f.category,
    f.difficulty ?? '',
    f.tags.join(', '),
    String(f.versions.reduce((n, v) => n + v.configs.length, 0)),
    f.contract === undefined ? '' : 'yes',
  ]);
  io.out(renderTable(['family', 'versions', 'category', 'difficulty', 'tags', 'configs', 'contract'], rows));
  return 0;
}

export function registryValidate(io: CliIO, opts: RegistryOptions): number {
  const registry = loadRegistry(registryFile(opts));
  const { issues, families } = validateRegistry(registry);
  const configs = families.reduce((n, f) => n + f.configs.size, 0);
  const contracts = families.filter((f) => f.contract !== undefined).length;
  if (opts.json)
    io.out(
      JSON.stringify(
        { registry: registry.file, families: families.length, configs, contracts, issues },
        null,
        2,
      ),
    );
  else {
    for (const issue of issues) io.err(`agentguard: ${formatIssue(issue)}`);
    io.out(
      `${registry.file}: ${families.length} families, ${configs} configs, ${contracts} contracts: ${issues.length === 0 ? 'valid' : `${issues.length} problem${issues.length === 1 ? '' : 's'}`}`,
    );
  }
  return issues.length === 0 ? 0 : 2;
}

/** An ordinary suite file listing the selected families' newest configs, relative to where it is written. */
export function registrySuite(io: CliIO, opts: RegistryOptions): number {
  if (opts.out === undefined) throw new UsageError("'registry suite' needs -o FILE. Fix: add -o suite.yaml.");
  const registry = loadRegistry(registryFile(opts));
  const out = path.resolve(opts.out);
  const configs = selectFamilies(registry, opts).flatMap((f) =>
    (f.versions[0]?.configs ?? []).map((c) => path.relative(path.dirname(out), c)),
  );
  if (configs.length === 0)
    throw new UsageError('the filter selects no family. Fix: loosen --family/--category/--difficulty/--tag.');
  const header = `# Written by 'agentguard registry suite' from ${registry.file}.\n`;
  writeFileSync(out, header + stringify({ configs }));
  io.err(`agentguard: wrote ${out} (${configs.length} configs)`);
  return 0;
}
