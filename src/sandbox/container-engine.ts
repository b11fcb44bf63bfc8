import type { ContainerConfig } from '../config/schema.js';
import { type RunOutcome, runCommand } from '../exec/run-command.js';

export type EngineName = 'podman' | 'docker';
export type EngineChoice = ContainerConfig['engine'];

export type EngineResolution =
  | {
      ok: true;
      engine: EngineName;
      version: string;
      defaultRuntime: string;
      /** `cgroupfs` takes a cgroup path as `--cgroup-parent`; `systemd` only a slice name. */
      cgroupManager: string;
    }
  | { ok: false; reason: string; fix: string };

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Variables the engine client (a Go program) reads itself: never taken from the agent's env. */
const ENGINE_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'LANG',
  'LC_ALL',
  'REGISTRY_AUTH_FILE',
  'DBUS_SESSION_BUS_ADDRESS',
  'GODEBUG',
  'GOGC',
  'GOMAXPROCS',
  'GOMEMLIMIT',
  'GOTRACEBACK',
]);
// LD_*: an agent's LD_PRELOAD belongs in the container, not in the host's engine client.
const ENGINE_PREFIXES = [
  'LD_',
  'XDG_',
  'CONTAINERS_',
  'CONTAINER_',
  'DOCKER_',
  'BUILDAH_',
  'STORAGE_',
  '_CONTAINERS_',
];

export function isEngineVariable(name: string): boolean {
  return ENGINE_NAMES.has(name) || ENGINE_PREFIXES.some((p) => name.startsWith(p));
}

/** The engine client's own environment, taken from the harness (not from the agent's spec). */
export function engineEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && isEngineVariable(name)) env[name] = value;
  }
  env.PATH ??= FALLBACK_PATH;
  return env;
}

/** Run an engine command to completion (never throws). */
export function engineCommand(engine: EngineName, args: string[], timeoutMs = 60_000): Promise<RunOutcome> {
  return runCommand({
    spec: { argv: [engine, ...args], cwd: '/', env: engineEnv() },
    timeoutMs,
    maxOutputBytes: 256 * 1024,
    killGraceMs: 1000,
  });
}

/** The first meaningful line of an engine's error output, for one-sentence reasons. */
export function firstLine(outcome: RunOutcome): string {
  const text = `${outcome.stderr}\n${outcome.stdout}`;
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (outcome.timed_out) return 'timed out';
  if (outcome.spawn_error) return outcome.spawn_error;
  return (line ?? `exit code ${outcome.exit_code}`).replace(/^Error:\s*/, '');
}

const INSTALL_FIX = 'apt-get install -y podman runc';

async function probe(engine: EngineName): Promise<EngineResolution> {
  // `info` talks to the engine for real (storage, runtime, daemon), unlike `version` which a lone client answers.
  const format =
    engine === 'podman'
      ? '{{.Version.Version}}|{{.Host.OCIRuntime.Name}}|{{.Host.CgroupManager}}'
      : '{{.ServerVersion}}|{{.DefaultRuntime}}|{{.CgroupDriver}}';
  const out = await engineCommand(engine, ['info', '--format', format], 30_000);
  if (out.spawn_error?.includes('not found')) {
    return { ok: false, reason: `${engine} is not installed`, fix: INSTALL_FIX };
  }
  if (out.exit_code !== 0) {
    const why = firstLine(out);
    if (engine === 'docker') {
      return {
        ok: false,
        reason: `the docker client is installed but no Docker daemon answers (${why})`,
        fix: `start the Docker daemon (systemctl start docker), or use podman: ${INSTALL_FIX}`,
      };
    }
    return {
      ok: false,
      reason: `podman is installed but 'podman info' fails (${why})`,
      fix: 'run `podman info` as the harness user and fix what it reports (storage, runtime, permissions)',
    };
  }
  const [version = 'unknown', runtime = 'unknown', cgroupManager = 'unknown'] = out.stdout.trim().split('|');
  return { ok: true, engine, version, defaultRuntime: runtime, cgroupManager };
}

/** Resolve `auto` to podman, then docker, and check that the chosen engine actually works here. */
export async function resolveEngine(choice: EngineChoice): Promise<EngineResolution> {
  if (choice !== 'auto') return probe(choice);
  const podman = await probe('podman');
  if (podman.ok) return podman;
  const docker = await probe('docker');
  if (docker.ok) return docker;
  return {
    ok: false,
    reason: `no working container engine: ${podman.reason}; ${docker.reason}`,
    fix: podman.reason.includes('not installed') ? INSTALL_FIX : podman.fix,
  };
}
