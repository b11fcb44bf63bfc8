import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { NamedMount, ParsedBenchmarkConfig } from './schema.js';
import { systemFolder } from './system-folder.js';

type Issue = (field: string, message: string, fix: string) => void;

/** The placeholder whose arguments name host paths: `{config_dir}` alone, or `{config_dir}/rel`. */
export const CONFIG_DIR = '{config_dir}';

/** The host path a command argument names through `{config_dir}`, or null when it names none. */
export function configDirPath(arg: string, configDir: string): string | null {
  if (arg === CONFIG_DIR) return configDir;
  if (arg.startsWith(`${CONFIG_DIR}/`)) return path.resolve(configDir, arg.slice(CONFIG_DIR.length + 1));
  return null;
}

/** An argument with its `{config_dir}` prefix written out (the loader renders the commands it runs itself). */
export function renderConfigDir(arg: string, configDir: string): string {
  return configDirPath(arg, configDir) ?? arg;
}

export type MountSources = {
  sandbox: ParsedBenchmarkConfig['sandbox'];
  toolchains: readonly string[];
  /** The config's commands as written, by field, placeholders unrendered. */
  commands: [field: string, argv: readonly string[] | undefined][];
  /** agent_workdir: config_dir runs the agent in the config's folder. */
  workdirIsConfigDir: boolean;
  configDir: string;
  /** The harness user's HOME, never shown whole (its credentials are what the sandbox hides). */
  home: string | undefined;
};

/**
 * Every host path the config names for the sandbox to show, besides the run's own folders, with the
 * field that names it: `sandbox.mounts` (relative to the config's folder or absolute, read-only
 * unless `writable: true`), `toolchains` (absolute, read-only: mounts by another name), and each
 * command argument that is or starts with `{config_dir}` (read-only). One check for all of them:
 * the path exists, is not `/` or a system folder, does not hold the harness user's HOME and is not
 * inside an agentguard output folder.
 */
export function resolveMounts(src: MountSources, issue: Issue): NamedMount[] {
  const asked: NamedMount[] = [];
  const section = typeof src.sandbox === 'object' ? src.sandbox : undefined;
  for (const [i, m] of (section?.mounts ?? []).entries()) {
    const given = typeof m === 'string' ? m : m.path;
    asked.push({
      path: path.resolve(src.configDir, given),
      writable: typeof m === 'object' && m.writable,
      field: `sandbox.mounts[${i}]`,
    });
  }
  for (const [i, dir] of src.toolchains.entries()) {
    const field = `toolchains[${i}]`;
    if (!path.isAbsolute(dir)) {
      issue(
        field,
        `'${dir}' is not an absolute path`,
        'name the folder by its absolute path, e.g. /root/.pyenv/versions/3.12.4',
      );
      continue;
    }
    asked.push({ path: path.resolve(dir), writable: false, field });
  }
  for (const [field, argv] of src.commands) {
    for (const [i, arg] of (argv ?? []).entries()) {
      const named = configDirPath(arg, src.configDir);
      if (named !== null) asked.push({ path: named, writable: false, field: `${field}[${i}]` });
    }
  }
  if (src.workdirIsConfigDir) asked.push({ path: src.configDir, writable: false, field: 'agent_workdir' });
  return asked.filter((m) => checkMount(m, src.home, src.configDir, issue));
}

function checkMount(m: NamedMount, home: string | undefined, configDir: string, issue: Issue): boolean {
  let real = m.path;
  try {
    real = realpathSync(m.path);
  } catch {
    issue(m.field, `${m.path} does not exist`, 'create it, or fix the path (relative to the config)');
    return false;
  }
  for (const p of new Set([m.path, real])) {
    const system = systemFolder(p);
    if (system) {
      issue(
        m.field,
        `${p} is ${system}, which the sandbox already shows or must not show whole`,
        'name the folder the task needs, e.g. a toolchain or data folder of its own',
      );
      return false;
    }
    // The config's own folder is shown to every run anyway, wherever it is.
    const rel = home && !isWithin(p, configDir) ? path.relative(p, path.resolve(home)) : '..';
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
      issue(
        m.field,
        `${p} holds your HOME (${home}), whose credentials the sandbox hides`,
        'name only the folder the task needs inside it, e.g. ~/.pyenv/versions/3.12.4 written out in full',
      );
      return false;
    }
    const output = outputFolderHolding(p);
    if (output) {
      issue(
        m.field,
        `${p} is inside the agentguard output folder ${output}, which holds other runs' evidence and canaries`,
        'name a folder outside every agentguard output folder',
      );
      return false;
    }
  }
  return true;
}

/** The agentguard output folder `p` is in (a `.agentguard` folder, or one holding `history.db` and `runs/`), or null. */
export function outputFolderHolding(p: string): string | null {
  for (let dir = path.resolve(p); ; dir = path.dirname(dir)) {
    if (path.basename(dir) === '.agentguard') return dir;
    if (existsSync(path.join(dir, 'history.db')) && isDir(path.join(dir, 'runs'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

function isWithin(p: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The sandbox's kind from `sandbox:`, whichever of its two forms the config used. */
export function sandboxKindOf(sandbox: ParsedBenchmarkConfig['sandbox']): NamedSandboxKind | undefined {
  return typeof sandbox === 'object' ? sandbox.kind : sandbox;
}

type NamedSandboxKind = Exclude<ParsedBenchmarkConfig['sandbox'], object | undefined>;
