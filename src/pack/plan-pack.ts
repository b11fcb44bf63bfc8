import { existsSync, lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError, type ConfigIssue, InputError } from '../errors.js';
import { READ_LIMITS, readEvidenceText } from '../evidence/read.js';
import { isAttackExpectationFile } from '../registry/attack-expectation.js';
import type { Registry, RegistryFamily } from '../registry/registry-file.js';
import { validateRegistry } from '../registry/validate-registry.js';
import { checkEntryName } from './entry-names.js';
import { PACK_REGISTRY } from './manifest.js';
import { type PackSource, walkFolder } from './walk-folder.js';

/*
 * What goes into a pack, and where. The layout keeps every config's position relative to the
 * registry (under `configs/`), so whatever a config names relative to its own folder — solution,
 * skills, trajectories, prompt and rule files, profile files, and the files its commands reach
 * through {config_dir} (the attack suite's `$0/../scripted-agent.sh`) — is found in the same place
 * and needs no rewriting. Repo templates are the exception: they move to `repos/NAME` (one copy
 * however many configs share it) and each config's `repo:` is rewritten to point there. A config
 * that names a file outside the registry's folder is refused: it could not keep its relative
 * position, and a pack must not reach out of the folder it was built from.
 */

export const CONFIGS_DIR = 'configs';
export const REPOS_DIR = 'repos';
export const CONTRACTS_DIR = 'contracts';

export type PackPlan = {
  files: Map<string, PackSource>;
  families: { id: string; versions: string[] }[];
  /** Original config file → its path in the pack, for the build's self-check. */
  configs: Map<string, string>;
};

export function planPack(
  registry: Registry,
  families: RegistryFamily[],
  step?: (label: string) => void,
): PackPlan {
  const root = path.dirname(registry.file);
  const validation = validateRegistry({ file: registry.file, families }, undefined, (id, i, n) =>
    step?.(`collecting the files: ${id} (${i + 1} of ${n})`),
  );
  if (validation.issues.length > 0) throw new ConfigError(validation.issues);
  const files = new Map<string, PackSource>();
  const issues: ConfigIssue[] = [];
  const repos = new Map<string, string>();
  const configs = new Map<string, string>();
  /** Where each family's contract is in the pack, by family id. */
  const contracts = new Map<string, string>();

  const inRoot = (abs: string) => {
    const rel = path.relative(root, abs);
    return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? null : rel.split(path.sep).join('/');
  };
  /** Add a file or folder the config names, at its registry-relative place; false when it is outside. */
  const addReferenced = (abs: string): boolean => {
    const rel = inRoot(abs);
    if (rel === null) return false;
    const packPath = `${CONFIGS_DIR}/${rel}`;
    const st = lstatSync(abs);
    if (st.isDirectory()) walkFolder(abs, packPath, files);
    else if (st.isFile()) setFile(files, packPath, abs, st.mode);
    else throw new InputError(`${abs}: is not a regular file or folder, so it cannot go into a pack.`);
    return true;
  };

  for (const v of validation.families) {
    for (const [configFile, cfg] of v.configs) {
      const issue = (field: string, message: string, fix: string) =>
        issues.push({ file: configFile, field, message, fix });
      const rel = inRoot(configFile);
      if (rel === null) throw new InputError(`${configFile} is outside the registry's folder`);
      const packConfig = `${CONFIGS_DIR}/${rel}`;
      configs.set(configFile, packConfig);
      let repoName = repos.get(cfg.repo);
      if (repoName === undefined) {
        repoName = freeName(v.family.id, new Set(repos.values()));
        repos.set(cfg.repo, repoName);
        walkFolder(cfg.repo, `${REPOS_DIR}/${repoName}`, files);
      }
      const repoRel = path.posix.relative(path.posix.dirname(packConfig), `${REPOS_DIR}/${repoName}`);
      files.set(packConfig, { type: 'file', mode: 0o644, bytes: rewriteRepo(configFile, repoRel) });
      for (const { field, abs } of referencedPaths(cfg))
        if (!addReferenced(abs))
          issue(
            field,
            `names ${abs}, outside the registry's folder ${root}, which a pack cannot carry`,
            "move the file into the registry's folder (next to the config) and name it from there",
          );
    }
    if (v.family.contract !== undefined) {
      // An attack case's contract is implied by the expect.yaml beside its config (read with that
      // config), so it keeps its place there; any other contract goes to contracts/<family>.yaml.
      const rel = isAttackExpectationFile(v.family.contract) ? inRoot(v.family.contract) : null;
      const packPath = rel === null ? `${CONTRACTS_DIR}/${v.family.id}.yaml` : `${CONFIGS_DIR}/${rel}`;
      contracts.set(v.family.id, packPath);
      setFile(files, packPath, v.family.contract, 0o644);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  files.set(PACK_REGISTRY, {
    type: 'file',
    mode: 0o644,
    bytes: packRegistry(registry, families, configs, contracts),
  });
  for (const name of files.keys()) {
    const problem = checkEntryName(name);
    if (problem !== null) throw new InputError(`cannot build a pack: '${name}' ${problem}`);
  }
  return {
    files,
    configs,
    families: families.map((f) => ({ id: f.id, versions: f.versions.map((x) => x.version) })),
  };
}

function setFile(files: Map<string, PackSource>, packPath: string, from: string, mode: number): void {
  files.set(packPath, { type: 'file', mode: mode & 0o111 ? 0o755 : 0o644, from });
}

function freeName(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * Every file or folder a config names besides its repo, with the field that names it. Commands are
 * argv lists whose paths cannot be known for certain; when one runs with {config_dir} (or from the
 * config's folder), each path-like word that names an existing file from there is packed.
 */
export function referencedPaths(cfg: ResolvedConfig): { field: string; abs: string }[] {
  const out: { field: string; abs: string }[] = [];
  const add = (field: string, abs: string | undefined) => {
    if (abs !== undefined) out.push({ field, abs });
  };
  add('solution', cfg.solution);
  add('task.prompt_file', cfg.prompt_file);
  add('model_script', cfg.model_script);
  add('skills', cfg.skills);
  if (cfg.agent_profile !== undefined && path.isAbsolute(cfg.agent_profile))
    add('agent_profile', cfg.agent_profile);
  for (const [i, rule] of cfg.security.rules.entries()) add(`security.rules[${i}]`, rule);
  // What the config shows its agent (sandbox.mounts, `{config_dir}/…` arguments); a toolchain is the host's.
  for (const m of cfg.mounts) {
    const up = path.relative(m.path, cfg.config_dir);
    if (!m.field.startsWith('toolchains') && up !== '' && up.startsWith('..')) add(m.field, m.path);
  }
  const commands: [string, string[] | undefined, boolean][] = [
    ['agent_command', cfg.agent_command, cfg.agent_workdir === 'config_dir'],
    ['agent_version_command', cfg.agent_version_command, cfg.agent_workdir === 'config_dir'],
    ['test_command', cfg.test_command, false],
  ];
  for (const [field, argv, fromConfigDir] of commands) {
    if (argv === undefined || !(fromConfigDir || argv.some((a) => a.includes('{config_dir}')))) continue;
    for (const word of pathWords(argv)) {
      const abs = path.resolve(cfg.config_dir, word);
      // The config's own folder or one above it is a working directory, not a file it names.
      const up = path.relative(abs, cfg.config_dir);
      if (up === '' || !up.startsWith('..')) continue;
      if (existsSync(abs)) add(field, abs);
    }
  }
  return out;
}

/** Path-like words of an argv: `{config_dir}` and shell variables (`$0`, `${X}`) split words. */
function pathWords(argv: string[]): string[] {
  const words = new Set<string>();
  for (const arg of argv) {
    const text = arg.replace(/\{config_dir\}|\$\{?[A-Za-z0-9_]+\}?/g, ' ');
    for (const m of text.matchAll(/[A-Za-z0-9_.@+/-]+/g)) {
      const word = m[0].replace(/^\/+/, '');
      if (word !== '' && word !== '.' && word !== '..') words.add(word);
    }
  }
  return [...words];
}

/** The config's text with only the value of `repo:` replaced, so every other byte stays as written. */
function rewriteRepo(configFile: string, repoRel: string): Buffer {
  const text = readEvidenceText(configFile, { maxBytes: READ_LIMITS.json, fix: 'check the config file' });
  const doc = YAML.parseDocument(text);
  const node = doc.get('repo', true);
  const range = YAML.isScalar(node) ? node.range : undefined;
  if (range === undefined || range === null)
    throw new InputError(`${configFile}: field 'repo' is not a plain value that a pack can rewrite`);
  return Buffer.from(text.slice(0, range[0]) + JSON.stringify(repoRel) + text.slice(range[1]));
}

/** The registry as the pack holds it: the selected families, their configs and contracts at pack paths. */
function packRegistry(
  registry: Registry,
  families: RegistryFamily[],
  configs: Map<string, string>,
  contracts: Map<string, string>,
): Buffer {
  const raw = YAML.parse(
    readEvidenceText(registry.file, { maxBytes: READ_LIMITS.json, fix: 'check the registry file' }),
  ) as {
    families: { id: string; contract?: string; versions: { version: string; configs: string[] }[] }[];
  };
  const wanted = new Map(families.map((f) => [f.id, f]));
  const root = path.dirname(registry.file);
  const kept = raw.families
    .filter((f) => wanted.has(f.id))
    .map((f) => ({
      ...f,
      ...(f.contract === undefined ? {} : { contract: contracts.get(f.id) }),
      versions: f.versions.map((v) => ({
        ...v,
        configs: v.configs.map((c) => configs.get(path.resolve(root, c)) ?? c),
      })),
    }));
  const header =
    '# The registry of an agentguard benchmark pack (docs/packs.md); paths are relative to it.\n';
  return Buffer.from(header + YAML.stringify({ ...raw, families: kept }, { lineWidth: 0 }));
}

/** Size of a planned file, for the manifest. */
export function sourceSize(src: PackSource): number {
  if (src.type === 'symlink') return Buffer.byteLength(src.target);
  return 'bytes' in src ? src.bytes.length : statSync(src.from).size;
}
