import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MicrovmSchema } from '../../config/schema.js';
import { InternalError, SetupError } from '../../errors.js';
import type { SpawnSpec } from '../../exec/types.js';
import { lazyTracer } from '../../observe/lazy-tracer.js';
import { asRunUser, bwrapArgv, bwrapMasks, prepareFiles, SANDBOX_PROXY_DIR } from '../bwrap.js';
import { describeMasks } from '../host-masks.js';
import type { HarnessWrapper, Sandbox, SandboxContext, SandboxSession } from '../types.js';
import { chooseAccel, hostTscKhz } from './accel.js';
import { microvmAvailability, microvmFindings } from './doctor.js';
import { STOP_TIMEOUT_MS } from './guest/guest-collector.js';
import { GUEST_NET_DIR } from './guest-protocol.js';
import { findImage, imageDir } from './image.js';
import type { LaunchPlan } from './launch.js';
import { cmdlineSafe } from './qemu-args.js';
import { splitTracer } from './split-tracer.js';

const MAX_PIDS = 1024;
/**
 * How long a stopped command's guest may take to kill it and drain the collector's trace: the
 * collector's own stop bound, and as long again to kill the command and report (under TCG on a busy
 * host each takes seconds; 15 s was seen too little). A trace cut short loses the command's last events.
 */
const DRAIN_MS = STOP_TIMEOUT_MS + 25_000;

function script(name: string): string {
  return fileURLToPath(new URL(name, import.meta.url));
}

export const microvmSandbox: Sandbox = {
  kind: 'microvm',
  capabilities: {
    isolatesNetwork: true,
    bridgesProxy: true,
    hidesHome: true,
    wrapsCommands: true,
    onHost: false,
    tracesInGuest: true,
    runsAsRunUser: true,
    onlyByName: true,
  },
  async available() {
    return microvmAvailability();
  },
  // doctor shows each part (QEMU, KVM, kernel and initramfs) with its own fix.
  doctorRows: async () => microvmFindings().map((f) => ({ name: f.name, availability: f.result })),
  start: startMicrovm,
  // Its parser and record stream are loaded only by a run in this sandbox.
  guestTracer: lazyTracer(
    'ebpf',
    async () => (await import('../../observe/guest-tracer.js')).guestEbpfTracer,
  ),
};

async function startMicrovm(ctx: SandboxContext): Promise<SandboxSession> {
  const cfg = ctx.microvm ?? MicrovmSchema.parse({});
  const availability = microvmAvailability(cfg);
  if (!availability.ok)
    throw new SetupError(`microvm sandbox: ${availability.reason}. Fix: ${availability.fix}`);
  const image = findImage();
  const accel = chooseAccel(cfg.accel);
  if ('missing' in image || 'error' in accel)
    throw new InternalError('microvm availability changed while starting');
  for (const p of [ctx.repoDir, ctx.hostHome, process.execPath, script('./guest/guest-run.js')]) {
    if (!cmdlineSafe(p))
      throw new SetupError(
        `microvm sandbox: the path '${p}' has a space or quote, which the guest's kernel command line cannot carry. Fix: use an output folder without spaces (--output).`,
      );
  }
  const dir = path.join(ctx.runDir, 'sandbox', 'microvm');
  mkdirSync(dir, { recursive: true });
  // The guest's console goes with the evidence: a guest that crashed says why there.
  const consoleDir = path.join(ctx.runDir, 'evidence', 'microvm');
  mkdirSync(consoleDir, { recursive: true });
  const files = prepareFiles(ctx.runDir, ctx.user ? { user: ctx.user, home: ctx.agentHome } : undefined);
  const timingFile = path.join(dir, 'timing.jsonl');
  const tscKhz = hostTscKhz();
  let launches = 0;
  let stopped = false;

  const wrap = (given: SpawnSpec, harness?: HarnessWrapper): SpawnSpec => {
    // As under bwrap: the command drops to the run user last; the harness's wrappers (the tracer,
    // the proxy bridge) stay root in the guest, out of the agent's reach.
    const dropped = ctx.user ? asRunUser(ctx.user, given) : given;
    const spec = harness ? harness(dropped, SANDBOX_PROXY_DIR) : dropped;
    if (stopped) throw new InternalError('microvm session was already stopped');
    launches += 1;
    const { trace, collector, traceFile, command } = splitTracer(spec.argv);
    // The inner sandbox is bwrap's, unchanged, inside the guest: the host's paths are the guest's
    // (the host root is its root), except the harness's sockets, which the guest runner serves.
    const inner = bwrapArgv(ctx, { ...spec, argv: command }, files).map((arg) => {
      if (!ctx.proxyDir) return arg;
      if (arg === ctx.proxyDir) return GUEST_NET_DIR;
      if (arg === path.join(ctx.proxyDir, 'resolv.conf')) return path.join(GUEST_NET_DIR, 'resolv.conf');
      return arg;
    });
    const sockets = ctx.proxyDir ? harnessSockets(ctx.proxyDir) : undefined;
    const resolv = ctx.proxyDir ? readIfExists(path.join(ctx.proxyDir, 'resolv.conf')) : undefined;
    const plan: LaunchPlan = {
      qemu: {
        accel: accel.accel,
        memory: cfg.memory,
        cpus: cfg.cpus,
        kernel: image.kernel,
        initramfs: image.initramfs,
        repoDir: ctx.repoDir,
        homeDir: ctx.hostHome,
        node: process.execPath,
        runner: script('./guest/guest-run.js'),
        ...(traceFile ? { traceFile } : {}),
        consoleFile: path.join(consoleDir, `console-${launches}.log`),
        tscKhz,
      },
      command: {
        argv: inner,
        env: spec.env,
        cwd: spec.cwd,
        pids_max: MAX_PIDS,
        ...(trace ? { trace } : {}),
        ...(collector ? { collector } : {}),
        ...(sockets ? { sockets } : {}),
        ...(resolv !== undefined ? { resolv } : {}),
      },
      ...(ctx.proxyDir ? { proxyDir: ctx.proxyDir } : {}),
      bootTimeoutMs: cfg.boot_timeout_seconds * 1000,
      drainMs: DRAIN_MS,
      timingFile,
    };
    const planFile = path.join(dir, `launch-${launches}.json`);
    writeFileSync(planFile, `${JSON.stringify(plan)}\n`, { mode: 0o600 });
    return {
      argv: [process.execPath, script('./launch.js'), planFile],
      cwd: ctx.repoDir,
      env: launcherEnv(),
      // The launcher's own exit paths come after the drain's deadline: the runner waits for them.
      stopGraceMs: DRAIN_MS + 2000,
    };
  };

  const net = ctx.network.mode === 'host' ? 'the host network (not isolated)' : 'no network device';
  return {
    kind: 'microvm',
    isolated: true,
    version: availability.version,
    detail:
      `QEMU microVM (${accel.reason}), ${cfg.memory} memory, ${cfg.cpus} vCPU, its own kernel ${image.release}: ` +
      `host root read-only over 9p, writable workspace and run HOME, private /tmp, ${net}${ctx.proxyDir ? ' except the harness proxy over virtio-serial' : ''}; ` +
      `inside it the agent runs under bwrap as with the bwrap sandbox` +
      `${ctx.user ? `, as uid ${ctx.user.uid} with no capabilities and no_new_privs` : ''}, at most ${MAX_PIDS} processes`,
    facts: {
      accel: accel.accel,
      accel_reason: accel.reason,
      kernel: image.release,
      memory: cfg.memory,
      cpus: String(cfg.cpus),
      image_dir: imageDir(),
      home_inside: ctx.agentHome,
      hidden: describeMasks(bwrapMasks(ctx)),
      seccomp: files.seccompNote,
      console_logs: path.relative(ctx.runDir, consoleDir),
      ...(ctx.user ? { run_user: `${ctx.user.uid}:${ctx.user.gid}` } : {}),
    },
    wrap,
    async stop() {
      // Each command's QEMU is its launcher's child and dies with it; nothing is left to stop.
      stopped = true;
    },
  };
}

/** The launcher needs no secrets of the agent's: only what finds node and QEMU. */
function launcherEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
}

function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** The harness's sockets in the proxy folder, each with its bridge key while the key is still there. */
function harnessSockets(proxyDir: string): { name: string; key?: string }[] {
  return ['proxy.sock', 'dns.sock']
    .filter((name) => existsSync(path.join(proxyDir, name)))
    .map((name) => {
      const key = readIfExists(path.join(proxyDir, `${name}.key`));
      return key === undefined ? { name } : { name, key };
    });
}
