import { SetupError } from '../errors.js';
import type { EngineName } from './container-engine.js';
import { isEngineVariable } from './container-engine.js';
import type { RunUser } from './types.js';

/** Everything fixed for a session: what `<engine> run` needs besides the command itself. */
export type RunPlan = {
  engine: EngineName;
  /** The image id inspected at start: the container runs exactly that image, whatever the tag says later. */
  imageId: string;
  runtime?: string;
  network: 'none' | 'host';
  memory: string;
  cpus: number;
  readOnly: boolean;
  pidsLimit: number;
  mounts: Array<{ source: string; target: string; readOnly?: boolean }>;
  /** Folders inside the mounts shown empty (agentguard's output folders), each covered by an empty folder. */
  masks?: Array<{ source: string; target: string }>;
  /** The run's own user: every command runs as it (`--user`), never as the image's user. */
  user?: RunUser;
  /** The OCI seccomp profile written from the seccomp policy (seccomp-profile.ts); absent where it cannot apply. */
  seccompFile?: string;
  /** The cgroup (below the v2 mount) the container goes below: the run's, which the collector follows. */
  cgroupParent?: string;
};

/** Lowered limits: the engines' defaults (nofile 1048576) exceed what this host lets a container set. */
const ULIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1000:1000'];

/** Container names allow [a-zA-Z0-9_.-] and must start with a letter or digit. */
export function containerPrefix(runId: string): string {
  const safe = runId.replace(/[^a-zA-Z0-9_.-]/g, '-');
  return `agentguard-${safe}`;
}

export function checkMountPath(path: string, what: string): void {
  if (/[:,\n]/.test(path)) {
    throw new SetupError(
      `the container sandbox cannot bind ${what} '${path}': the path contains ':' ',' or a newline. ` +
        'Fix: use a run directory whose path has none of these characters.',
    );
  }
}

/** `<engine> run` arguments up to and including the image; the command's argv follows. */
export function runArgs(plan: RunPlan, name: string, cwd: string, envArgs: string[]): string[] {
  const args = ['run', '--rm', '--name', name, '--pull', 'never'];
  if (plan.runtime) args.push('--runtime', plan.runtime);
  args.push('--network', plan.network);
  args.push('--memory', plan.memory, '--memory-swap', plan.memory, '--cpus', String(plan.cpus));
  args.push('--pids-limit', String(plan.pidsLimit), ...ULIMITS);
  // No capability, no privilege gained by exec (a setuid file grants nothing), the run's uid/gid with
  // no supplementary group, and the seccomp policy of the bwrap sandbox instead of the engine's own.
  args.push('--cap-drop', 'ALL', '--security-opt', 'no-new-privileges');
  if (plan.seccompFile) args.push('--security-opt', `seccomp=${plan.seccompFile}`);
  if (plan.user) args.push('--user', `${plan.user.uid}:${plan.user.gid}`);
  if (plan.cgroupParent) args.push('--cgroup-parent', plan.cgroupParent);
  if (plan.readOnly) args.push('--read-only');
  args.push('--tmpfs', '/tmp');
  // The engine mounts by depth, so a mask goes over its shown folder and the run's own folders over it.
  const binds = [...plan.mounts, ...(plan.masks ?? []).map((m) => ({ ...m, readOnly: true }))];
  for (const m of binds) args.push('-v', `${m.source}:${m.target}${m.readOnly ? ':ro' : ''}`);
  args.push('-w', cwd, ...envArgs, plan.imageId);
  return args;
}

/** Force-remove containers by name; podman's `--ignore` tolerates ones `--rm` already took away. */
export function removeArgs(engine: EngineName, names: string[]): string[] {
  return engine === 'podman' ? ['rm', '-f', '--time', '0', '--ignore', ...names] : ['rm', '-f', ...names];
}

export type EnvSplit = {
  /** `-e NAME` flags: the value travels in the engine client's environment, never in argv. */
  passNames: string[];
  /** Values for those names, merged into the client's environment. */
  passValues: Record<string, string>;
  /** Names the engine client reads itself (PATH, HOME, XDG_*...): written to a private --env-file instead. */
  fileLines: string[];
};

/** Decide how each variable of the agent's environment reaches the container. */
export function splitEnv(env: Record<string, string>, agentHome: string): EnvSplit {
  const split: EnvSplit = { passNames: [], passValues: {}, fileLines: [] };
  const all = { HOME: agentHome, ...env };
  for (const [name, value] of Object.entries(all)) {
    if (isEngineVariable(name)) {
      if (/[\r\n]/.test(value)) {
        throw new SetupError(
          `the container sandbox cannot pass ${name}: its value contains a line break. Fix: remove it from the agent environment.`,
        );
      }
      split.fileLines.push(`${name}=${value}`);
    } else {
      split.passNames.push(name);
      split.passValues[name] = value;
    }
  }
  return split;
}

/** Map a host path under the sandbox HOME to where the container sees it; other paths are bound as is. */
export function insidePath(path: string, hostHome: string, agentHome: string): string {
  if (path === hostHome) return agentHome;
  if (path.startsWith(`${hostHome}/`)) return agentHome + path.slice(hostHome.length);
  return path;
}

/**
 * Wrap the engine client in a tiny shell that removes the container when the harness signals the group:
 * the container outlives a killed `run` client, so a timed-out agent would keep running (and writing the
 * workspace) until stop(). `name` is a validated container name, so embedding it in the script is safe.
 */
export function supervised(engine: EngineName, name: string, clientArgv: string[]): string[] {
  const remove = [engine, ...removeArgs(engine, [name])].join(' ');
  const script = `trap '${remove} >/dev/null 2>&1; exit 143' TERM INT; "$@" & wait $!`;
  return ['/bin/sh', '-c', script, 'agentguard-container', ...clientArgv];
}
