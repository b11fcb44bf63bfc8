import { existsSync, mkdirSync } from 'node:fs';
import { ConfigError, SetupError } from '../../errors.js';
import { loadProfile } from '../profiles/load-profile.js';
import { agentCacheDir, agentInstallDir, cachedBinPath, installedVersion } from './agent-cache.js';
import { explainNpmFailure, runNpm } from './npm.js';

export type InstallOptions = {
  /** Default: `$AGENTGUARD_AGENT_CACHE`, else `~/.cache/agentguard/agents`. */
  cacheDir?: string;
  /** npm's environment (its own cache, proxy and registry settings come from here). Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The npm executable. Default: `npm` on PATH. */
  npm?: string;
  /** Default: 10 minutes. */
  timeoutMs?: number;
  log?: (line: string) => void;
};

export type InstallResult = {
  name: string;
  package: string;
  version: string;
  /** The npm prefix the agent lives in (a sandbox must make it visible). */
  dir: string;
  bin: string;
  /** False when the pinned version was already there and nothing ran. */
  fresh: boolean;
};

/**
 * Install the agent a profile pins into agentguard's own cache (`npm install --prefix <cache>/<name>`,
 * never globally). Cheap when the pinned version is already there. Throws ConfigError for an unknown
 * profile or one without a package, SetupError (one sentence with the fix) when npm is missing, the
 * registry cannot be reached or the install fails.
 */
export async function installAgent(nameOrPath: string, opts: InstallOptions = {}): Promise<InstallResult> {
  const profile = loadProfile(nameOrPath);
  const pkg = profile.package;
  if (!pkg) {
    throw new ConfigError(
      `${profile.file}: field 'package': profile '${profile.name}' names no npm package to install. ` +
        `Fix: add package: {name, version}, or install '${profile.bin}' yourself and put it on PATH.`,
    );
  }
  const env = opts.env ?? process.env;
  const dir = agentInstallDir(opts.cacheDir ?? agentCacheDir(env), profile.name);
  const bin = cachedBinPath(dir, profile.bin);
  const spec = `${pkg.name}@${pkg.version}`;
  const result = (fresh: boolean): InstallResult => ({
    name: profile.name,
    package: pkg.name,
    version: pkg.version,
    dir,
    bin,
    fresh,
  });
  if (installedVersion(dir, pkg.name) === pkg.version && existsSync(bin)) return result(false);

  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new SetupError(
      `cannot create the agent cache folder ${dir} (${(err as NodeJS.ErrnoException).code ?? 'error'}). ` +
        'Fix: make it writable or point AGENTGUARD_AGENT_CACHE at a folder that is.',
    );
  }
  opts.log?.(`installing ${spec} into ${dir}`);
  const run = await runNpm(
    opts.npm ?? 'npm',
    ['install', '--prefix', dir, '--no-audit', '--no-fund', '--save-exact', '--loglevel=error', spec],
    { env, timeoutMs: opts.timeoutMs ?? 10 * 60_000, cwd: dir },
  );
  const failed = (message: string, fix: string) =>
    new SetupError(`cannot install agent '${profile.name}' (${spec}): ${message}. Fix: ${fix}.`);
  if (run.status === 'missing') {
    throw failed('npm is not installed (or not on PATH)', 'install Node.js 20 or newer, which brings npm');
  }
  if (run.status === 'timeout') {
    throw failed(
      `npm did not finish within ${Math.round((opts.timeoutMs ?? 600_000) / 1000)} s`,
      'check the network, then install again',
    );
  }
  if (run.code !== 0) {
    const why = explainNpmFailure(run.stderr, spec);
    throw failed(why.message, why.fix);
  }
  const installed = installedVersion(dir, pkg.name);
  if (installed !== pkg.version || !existsSync(bin)) {
    const what =
      installed === null
        ? `${pkg.name} is not in ${dir}`
        : installed !== pkg.version
          ? `${pkg.name} ${installed} is there instead of ${pkg.version}`
          : `the package provides no '${profile.bin}' executable`;
    throw failed(`npm finished, but ${what}`, "check the profile's package and bin");
  }
  return result(true);
}
