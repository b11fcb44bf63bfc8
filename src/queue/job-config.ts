import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isProfilePath } from '../agents/profiles/load-profile.js';
import { CONFIG_FILE, loadConfigOrThrow, readConfigYaml } from '../config/load.js';
import { validateYamlValue } from '../config/load-yaml-file.js';
import { CONFIG_DIR } from '../config/mounts.js';
import { BenchmarkConfigSchema, type ParsedBenchmarkConfig, type ResolvedConfig } from '../config/schema.js';
import { ConfigError, InputError } from '../errors.js';

/** Links a path may go through before it is judged a loop, as the kernel's ELOOP limit. */
const MAX_LINK_HOPS = 40;

/**
 * A queue job's config, loaded from its extracted task bundle, when every path it names lies inside
 * the bundle. The paths are judged from the parsed file before the config loader looks at any of
 * them: the loader says whether a folder exists, and a job naming `/home/x` (or `../../..`, or a
 * toolchain) must learn nothing about the worker's host, so the refusal is the same sentence
 * whether the path exists or not. Nothing outside the bundle is ever opened, stat'ed or resolved.
 */
export function loadJobConfig(taskDir: string, configRel: string, what: string): ResolvedConfig {
  const root = realpathSync(taskDir);
  const configPath = path.join(root, configRel);
  const refuse = (field: string, p: string) =>
    new InputError(
      `${what}: ${configPath}: field '${field}' names ${p}, outside the job's task bundle; not run. ` +
        'Fix: keep every path of a queued task inside its task folder.',
    );
  if (resolveInside(root, root, configRel) === null) throw refuse('task.config', configRel);
  const read = readConfigYaml(configPath);
  if (!read.ok) throw new ConfigError(read.issues);
  const parsed = validateYamlValue(configPath, read.value, BenchmarkConfigSchema, CONFIG_FILE);
  if (!parsed.ok) throw new ConfigError(parsed.issues);
  const configDir = path.dirname(configPath);
  for (const [field, p] of configPaths(parsed.value))
    if (resolveInside(root, configDir, p) === null) throw refuse(field, p);
  return loadConfigOrThrow(configPath);
}

/** Every path a config file names, by its field, as written: what must stay inside a job's bundle. */
function configPaths(cfg: ParsedBenchmarkConfig): [string, string][] {
  const out: [string, string][] = [['repo', cfg.repo]];
  if (cfg.solution !== undefined) out.push(['solution', cfg.solution]);
  if (cfg.task.prompt_file !== undefined) out.push(['task.prompt_file', cfg.task.prompt_file]);
  for (const [i, f] of cfg.security.rules.entries()) out.push([`security.rules[${i}]`, f]);
  if (cfg.agent_profile !== undefined && isProfilePath(cfg.agent_profile))
    out.push(['agent_profile', cfg.agent_profile]);
  if (cfg.model_script !== undefined) out.push(['model_script', cfg.model_script]);
  if (cfg.skills !== undefined) out.push(['skills', cfg.skills]);
  // Host paths shown to the agent: never a job's to choose.
  for (const [i, d] of cfg.toolchains.entries()) out.push([`toolchains[${i}]`, d]);
  const mounts = typeof cfg.sandbox === 'object' ? cfg.sandbox.mounts : [];
  for (const [i, m] of mounts.entries())
    out.push([`sandbox.mounts[${i}]`, typeof m === 'string' ? m : m.path]);
  const commands: [string, string | readonly string[] | undefined][] = [
    ['agent_command', cfg.agent_command],
    ['test_command', cfg.test_command],
    ['setup_command', cfg.setup_command],
  ];
  for (const [field, argv] of commands) {
    const args = typeof argv === 'string' ? [argv] : (argv ?? []);
    for (const [i, arg] of args.entries()) {
      // A `{config_dir}/…` argument names a path the sandbox shows, relative to the config's folder.
      if (arg === CONFIG_DIR) out.push([`${field}[${i}]`, '.']);
      else if (arg.startsWith(`${CONFIG_DIR}/`))
        out.push([`${field}[${i}]`, arg.slice(CONFIG_DIR.length + 1)]);
    }
  }
  for (const [i, d] of (cfg.setup?.dependencies ?? []).entries())
    if ('cache' in d && typeof d.cache === 'string') out.push([`setup.dependencies[${i}].cache`, d.cache]);
  return out;
}

/**
 * `p` (relative to `from`, a folder inside `root`) resolved inside `root`, or null as soon as it
 * leaves it: first as Node resolves it (lexically), then each link on the way read and followed by
 * hand, so nothing outside `root` is ever looked at. A missing part ends the walk: what follows is
 * judged as written.
 */
export function resolveInside(root: string, from: string, p: string): string | null {
  const inside = (q: string) => q === root || q.startsWith(root + path.sep);
  let abs = path.resolve(from, p);
  if (!inside(abs)) return null;
  let hops = 0;
  for (;;) {
    const parts = path.relative(root, abs).split(path.sep).filter(Boolean);
    let at = root;
    let followed = false;
    for (const [i, part] of parts.entries()) {
      const next = path.join(at, part);
      let link: string;
      try {
        if (!lstatSync(next).isSymbolicLink()) {
          at = next;
          continue;
        }
        link = readlinkSync(next);
      } catch {
        return abs; // missing from here on: judged as written, and that is inside
      }
      if (++hops > MAX_LINK_HOPS) return null;
      abs = path.resolve(at, link, ...parts.slice(i + 1));
      if (!inside(abs)) return null;
      followed = true;
      break;
    }
    if (!followed) return at;
  }
}
