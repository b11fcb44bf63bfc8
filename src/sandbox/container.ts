import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InternalError, SetupError } from '../errors.js';
import { SECCOMP_FACT } from '../evidence/seccomp-policy.js';
import type { SpawnSpec } from '../exec/types.js';
import { SANDBOX_PROXY_DIR } from './bwrap.js';
import {
  containerPrefix,
  insidePath,
  type RunPlan,
  removeArgs,
  runArgs,
  splitEnv,
  supervised,
} from './container-args.js';
import {
  type EngineChoice,
  type EngineName,
  engineCommand,
  engineEnv,
  firstLine,
  resolveEngine,
} from './container-engine.js';
import { chooseRuntime, inspectImage, planMounts, prepareMasks } from './container-setup.js';
import { describeMasks } from './host-masks.js';
import { seccompSupported } from './seccomp-filter.js';
import { seccompProfile } from './seccomp-profile.js';
import type {
  HarnessWrapper,
  Sandbox,
  SandboxAvailability,
  SandboxContext,
  SandboxSession,
} from './types.js';

export const TEST_IMAGE = 'localhost/agentguard-test:latest';
const PIDS_LIMIT = 1024;

/** Whether a container engine works here; `doctor` asks per configured engine, `available()` for auto. */
export async function containerAvailability(engine: EngineChoice = 'auto'): Promise<SandboxAvailability> {
  const r = await resolveEngine(engine);
  return r.ok ? { ok: true, version: `${r.engine} ${r.version}` } : r;
}

export const containerSandbox: Sandbox = {
  kind: 'container',
  capabilities: {
    isolatesNetwork: true,
    // The session can mount the proxy's sockets (facts.proxy_mount), but nothing inside the
    // container bridges to them: a bridge there would run as the run user, within the agent's reach
    // (wrap refuses one). An allow list stays advisory.
    bridgesProxy: false,
    hidesHome: true,
    wrapsCommands: true,
    onHost: false,
    runsAsRunUser: true,
    // Checked on podman 4.3 with runc: the agent runs under conmon and runc, started apart from the
    // client the tracer wraps, so strace cannot follow it (and runc fails to start a container under
    // strace). With --cgroup-parent the payload's cgroup is a child of the run's, which the compiled
    // collector follows; bpftrace matches the run's cgroup exactly and does not.
    hiddenFromTracers: {
      reason:
        "runs each command under the engine's runtime (conmon, runc), outside the process tree strace follows and below the run's cgroup, which bpftrace does not watch",
      fix: 'use the ebpf tracer with the compiled collector (make -C collector), or the bwrap or microvm sandbox',
      seenFromCgroupTree: true,
    },
    needsConfig: { field: 'container', missing: 'needs an image', fix: 'add container: {image: NAME}' },
  },
  available: () => containerAvailability('auto'),
  doctorRows: async () =>
    Promise.all(
      (['podman', 'docker'] as const).map(async (engine) => ({
        name: `container (${engine})`,
        availability: await containerAvailability(engine),
      })),
    ),
  start: startContainerSession,
};

async function startContainerSession(ctx: SandboxContext): Promise<SandboxSession> {
  const cfg = ctx.container;
  if (!cfg) {
    throw new SetupError(
      `the container sandbox needs a 'container:' section naming a local image. Fix: add 'container: { image: ${TEST_IMAGE} }' ` +
        'to the config (build that image with scripts/make-test-image.sh).',
    );
  }
  const resolved = await resolveEngine(cfg.engine);
  if (!resolved.ok) throw new SetupError(`container sandbox: ${resolved.reason}. Fix: ${resolved.fix}`);
  const engine = resolved.engine;
  const imageId = await inspectImage(engine, cfg.image);
  const prefix = containerPrefix(ctx.runId);
  const mounts = planMounts(ctx);
  const seccompFile = writeSeccompProfile(ctx.runDir);
  const base: RunPlan = {
    engine,
    imageId,
    network: ctx.network.mode === 'host' ? 'host' : 'none',
    memory: cfg.memory,
    cpus: cfg.cpus,
    readOnly: cfg.read_only,
    pidsLimit: PIDS_LIMIT,
    mounts: mounts.mounts,
    masks: prepareMasks(
      join(ctx.runDir, 'sandbox', `masks-${prefix}`),
      mounts.masks,
      mounts.mounts.map((m) => m.target),
    ),
    ...(ctx.user ? { user: ctx.user } : {}),
    ...(seccompFile ? { seccompFile } : {}),
  };
  const chosen = await chooseRuntime(base, cfg, resolved.defaultRuntime, `${prefix}-probe`);
  const plan: RunPlan = { ...base, runtime: chosen.runtime };
  const runtime = chosen.runtime ?? resolved.defaultRuntime;

  const facts: Record<string, string> = {
    engine,
    engine_version: resolved.version,
    image: cfg.image,
    image_id: imageId,
    runtime,
    cgroup_manager: resolved.cgroupManager,
    network: plan.network,
    memory: cfg.memory,
    cpus: String(cfg.cpus),
    read_only: String(cfg.read_only),
    pids_limit: String(PIDS_LIMIT),
    container_prefix: `${prefix}-`,
    capabilities: 'none (--cap-drop ALL), no_new_privs',
    seccomp: seccompFile
      ? `${SECCOMP_FACT} (OCI profile; a call of another ABI is killed with SIGSYS)`
      : `the engine's default profile: the filter is written for x86_64 and this host is ${process.arch}`,
    ...(ctx.user ? { run_user: `${ctx.user.uid}:${ctx.user.gid}` } : {}),
  };
  if (chosen.reason) facts.runtime_reason = chosen.reason;
  if (ctx.proxyDir) facts.proxy_mount = SANDBOX_PROXY_DIR;
  if (mounts.masks.length > 0)
    facts.hidden = describeMasks(
      mounts.masks.map((p) => ({
        path: p,
        how: statSync(p, { throwIfNoEntry: false })?.isFile()
          ? ('empty file' as const)
          : ('empty folder' as const),
      })),
    );
  if (mounts.skipped.length > 0) facts.visible_skipped = mounts.skipped.join(':');

  const envDir = mkdtempSync(join(tmpdir(), 'agentguard-ctr-'));
  const started: string[] = [];
  let stopped = false;

  const wrap = (spec: SpawnSpec, harness?: HarnessWrapper, cgroupTree?: string): SpawnSpec => {
    // Everything in the container runs as the run user: a harness process there (the proxy bridge)
    // could be signalled, traced and read by the agent. The sandbox does not bridge the proxy.
    if (harness) {
      throw new InternalError(
        'the container sandbox runs every process as the run user and cannot keep a harness wrapper apart from the agent',
      );
    }
    if (stopped) throw new InternalError(`container session ${prefix} was already stopped`);
    const name = `${prefix}-${started.length + 1}`;
    const env = splitEnv(spec.env, ctx.agentHome);
    const envArgs: string[] = [];
    if (env.fileLines.length > 0) {
      const file = join(envDir, `${name}.env`);
      writeFileSync(file, `${env.fileLines.join('\n')}\n`, { mode: 0o600 });
      envArgs.push('--env-file', file);
    }
    for (const n of env.passNames) envArgs.push('-e', n);
    const cwd = insidePath(spec.cwd, ctx.hostHome, ctx.agentHome);
    started.push(name);
    if (cgroupTree && resolved.cgroupManager !== 'cgroupfs') {
      // The systemd manager takes only a slice name: the payload would land outside the run's cgroup, untraced.
      throw new SetupError(
        `the container sandbox cannot put its commands below the run's cgroup ${cgroupTree}: ${engine} uses the ${resolved.cgroupManager} cgroup manager, whose --cgroup-parent is a systemd slice. ` +
          `Fix: set cgroup_manager = "cgroupfs" in containers.conf (docker: exec-opts ["native.cgroupdriver=cgroupfs"]), or run with --tracer off.`,
      );
    }
    const placed: RunPlan = cgroupTree ? { ...plan, cgroupParent: cgroupTree } : plan;
    const client = [engine, ...runArgs(placed, name, cwd, envArgs), ...spec.argv];
    return {
      argv: supervised(engine, name, client),
      cwd: ctx.repoDir,
      env: { ...env.passValues, ...engineEnv() },
    };
  };

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      const names = new Set([...started, `${prefix}-probe`, ...(await listContainers(engine, prefix))]);
      await engineCommand(engine, removeArgs(engine, [...names]));
      const left = await listContainers(engine, prefix);
      if (left.length > 0) {
        throw new SetupError(
          `could not remove containers ${left.join(', ')}. Fix: ${engine} ${removeArgs(engine, left).join(' ')}`,
        );
      }
    } finally {
      rmSync(envDir, { recursive: true, force: true });
    }
  };

  const limits = `memory ${cfg.memory}, ${cfg.cpus} cpus, ${PIDS_LIMIT} pids`;
  const net = {
    none: 'no network',
    host: 'host network (not isolated)',
    allowlist: 'network only via the egress proxy',
  };
  return {
    kind: 'container',
    isolated: true,
    version: `${engine} ${resolved.version}`,
    detail:
      `each command ran in a new ${engine} container (runtime ${runtime}) from local image ${cfg.image} ` +
      `(${imageId.slice(0, 12)}): ${cfg.read_only ? 'read-only root' : 'writable root'}, workspace bound ` +
      `read-write at the same path, private /tmp, ${net[ctx.network.mode]}, ${limits}; ` +
      `${ctx.user ? `run as uid ${ctx.user.uid}` : "run as the image's user"} with no capabilities and no_new_privs, ` +
      `${seccompFile ? SECCOMP_FACT : "the engine's default seccomp profile"}`,
    facts,
    wrap,
    stop,
  };
}

/**
 * The session's seccomp profile, under the run folder (root's alone; the engine reads it as root), or
 * null where the policy does not apply (not x86_64) and the engine's default profile stays.
 */
function writeSeccompProfile(runDir: string): string | null {
  if (!seccompSupported()) return null;
  const dir = join(runDir, 'sandbox');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'seccomp.json');
  writeFileSync(file, `${JSON.stringify(seccompProfile(), null, 2)}\n`, { mode: 0o444 });
  return file;
}

/** Every container (running or not) whose name carries this session's prefix. */
export async function listContainers(engine: EngineName, prefix: string): Promise<string[]> {
  const pattern = `^${prefix.replace(/[.]/g, '\\.')}-`;
  const out = await engineCommand(engine, [
    'ps',
    '-a',
    '--filter',
    `name=${pattern}`,
    '--format',
    '{{.Names}}',
  ]);
  if (out.exit_code !== 0) throw new SetupError(`${engine} ps failed: ${firstLine(out)}`);
  return out.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}
