import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** agentguard's own agent cache: `$AGENTGUARD_AGENT_CACHE`, else `~/.cache/agentguard/agents`. */
export function agentCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const override = env.AGENTGUARD_AGENT_CACHE;
  return override ? path.resolve(override) : path.join(homedir(), '.cache', 'agentguard', 'agents');
}

/** The npm prefix one agent is installed into: `<cache>/<profile name>`. */
export function agentInstallDir(cacheDir: string, name: string): string {
  return path.join(cacheDir, name);
}

/** The version of `pkg` installed under `dir`, or null when it is not there. */
export function installedVersion(dir: string, pkg: string): string | null {
  try {
    const manifest: unknown = JSON.parse(
      readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8'),
    );
    if (
      manifest &&
      typeof manifest === 'object' &&
      'version' in manifest &&
      typeof manifest.version === 'string'
    ) {
      return manifest.version;
    }
    return null;
  } catch {
    return null;
  }
}

/** Where npm links an installed package's executable. */
export function cachedBinPath(dir: string, bin: string): string {
  return path.join(dir, 'node_modules', '.bin', bin);
}
