import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { AgentProfile } from '../profiles/schema.js';
import { agentCacheDir, agentInstallDir, cachedBinPath, installedVersion } from './agent-cache.js';

export type ResolvedBin =
  | {
      ok: true;
      /** The executable to start. */
      path: string;
      /** The install folder (npm prefix) a sandbox must make visible, or null for a program on PATH. */
      dir: string | null;
      version: string | null;
      source: 'cache' | 'path';
    }
  | { ok: false; message: string; fix: string };

export type ResolveOptions = {
  cacheDir?: string;
  /** For `AGENTGUARD_AGENT_CACHE` and, for profiles without a package, PATH. */
  env?: Readonly<Record<string, string | undefined>>;
};

function runnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The executable a profile runs: from agentguard's cache at exactly the pinned version when the
 * profile names a package, else its `bin` as an absolute path or on PATH.
 */
export function resolveAgentBin(profile: AgentProfile, opts: ResolveOptions = {}): ResolvedBin {
  const env = opts.env ?? process.env;
  const pkg = profile.package;
  if (pkg) {
    const dir = agentInstallDir(opts.cacheDir ?? agentCacheDir(env), profile.name);
    const file = cachedBinPath(dir, profile.bin);
    const version = installedVersion(dir, pkg.name);
    const fix = `run 'agentguard agents install ${profile.name}'`;
    if (version === null || !runnable(file)) {
      return {
        ok: false,
        message: `agent '${profile.name}' (${pkg.name}@${pkg.version}) is not installed in ${dir}`,
        fix,
      };
    }
    if (version !== pkg.version) {
      return {
        ok: false,
        message: `agent '${profile.name}' is installed at ${version} in ${dir}, but the profile pins ${pkg.version}`,
        fix,
      };
    }
    return { ok: true, path: file, dir, version, source: 'cache' };
  }
  if (profile.bin.includes('/')) {
    const file = path.resolve(path.dirname(profile.file), profile.bin);
    return runnable(file)
      ? { ok: true, path: file, dir: null, version: null, source: 'path' }
      : {
          ok: false,
          message: `${file} (bin of profile '${profile.name}') is not an executable file`,
          fix: 'correct bin',
        };
  }
  for (const dir of (env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    if (!dir) continue;
    const file = path.join(dir, profile.bin);
    if (runnable(file)) return { ok: true, path: file, dir: null, version: null, source: 'path' };
  }
  return {
    ok: false,
    message: `'${profile.bin}' (bin of profile '${profile.name}') is not on PATH`,
    fix: 'install it, give its absolute path in bin, or add a package to the profile',
  };
}
