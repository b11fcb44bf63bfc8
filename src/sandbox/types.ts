import type { ContainerConfig, MicrovmConfig, NetworkConfig, ResolvedConfig } from '../config/schema.js';
import type { SandboxKind } from '../evidence/kinds.js';
import type { SpawnSpec } from '../exec/types.js';
import type { Tracer } from '../observe/types.js';

/**
 * The unprivileged uid and gid a run's agent, setup and tests run as. One per run, never shared by
 * two runs at the same time: then the agent owns nothing of the harness's or of another run's, and
 * can neither signal, trace nor read the memory of a process that is not its own.
 */
export type RunUser = { uid: number; gid: number };

export type SandboxContext = {
  runId: string;
  /** `<output folder>/runs/<run-id>`: the sandbox hides the whole output folder from the agent. */
  runDir: string;
  /** The only folder the agent may write (besides private scratch areas). */
  repoDir: string;
  /** The agent's HOME on the host side, seeded by the harness. */
  hostHome: string;
  /** The HOME path the sandboxed process sees (the same as hostHome for `local`). */
  agentHome: string;
  /**
   * Host folders the sandboxed commands must read (the agent's program, the task's files). Sandboxes
   * that hide parts of the host (home folders, /tmp) bind these back read-only at the same path.
   */
  visible: string[];
  /** Host paths shown writable at their own paths (`sandbox.mounts` with `writable: true`). */
  writable?: string[];
  /**
   * Host paths never shown, even inside a shown folder (the task's solution, the template's grader
   * files), unless a path of `visible` or `writable` lies in them: the config named them itself.
   */
  withheld?: string[];
  /**
   * The run's own unprivileged user (run-user.ts), for a sandbox that `runsAsRunUser`: every command
   * runs as it, and the workspace and HOME are given to it. Absent: commands run as the harness's user.
   */
  user?: RunUser;
  network: NetworkConfig;
  /** Host folder holding the egress proxy's Unix sockets, bound into the sandbox when allowlisting. */
  proxyDir?: string;
  container?: ContainerConfig;
  microvm?: MicrovmConfig;
};

/** The folders and id a sandbox session is laid out from (the rest of SandboxContext is policy). */
export type SandboxPlaces = Pick<
  SandboxContext,
  'runId' | 'runDir' | 'repoDir' | 'hostHome' | 'agentHome' | 'visible' | 'writable' | 'withheld' | 'user'
>;

/**
 * A wrapper of the harness's own (the proxy bridge; with tracesInGuest the tracer around it too) that
 * starts a command: the sandbox runs it inside, at the harness's uid, and only the command as the
 * run's user; or, without root, outside its PID namespace (rootless-net.ts). `proxyDir` is where
 * the wrapper finds the proxy's sockets from where it runs.
 */
export type HarnessWrapper = (command: SpawnSpec, proxyDir: string) => SpawnSpec;

export type SandboxAvailability = { ok: true; version: string } | { ok: false; reason: string; fix: string };

/** A started sandbox: wraps each command that must run inside it, and cleans up at the end. */
export interface SandboxSession {
  readonly kind: SandboxKind;
  readonly isolated: boolean;
  readonly version: string;
  /** A sentence for reports, e.g. what is and is not isolated. */
  readonly detail: string;
  /** Facts for observation.json, e.g. the container image id actually used. */
  readonly facts: Record<string, string>;
  /**
   * The command as it must be spawned to run inside the sandbox, under `harness` when given.
   * `cgroupTree`: the cgroup (below the v2 mount) the tracer watches with its descendants; a sandbox
   * that runs commands outside the caller's process tree (`hiddenFromTracers.seenFromCgroupTree`)
   * puts them below it.
   */
  wrap(spec: SpawnSpec, harness?: HarnessWrapper, cgroupTree?: string): SpawnSpec;
  stop(): Promise<void>;
}

/**
 * What a sandbox does for the run. The plan, the observation window and the reports ask these, never
 * the sandbox's name, so a new sandbox states its abilities here and nothing outside src/sandbox/
 * changes.
 */
export type SandboxCapabilities = {
  /** Takes the network away (a network namespace): network `none` holds. False: the agent keeps the host's network. */
  isolatesNetwork: boolean;
  /**
   * Binds the egress proxy's Unix sockets in (`SandboxContext.proxyDir`) into a network namespace
   * where they are the only way out, so an allow list is enforced. False: the proxy is offered on
   * loopback through HTTP_PROXY, which a program may bypass.
   */
  bridgesProxy: boolean;
  /** Hides the user's HOME and shows the run's own HOME at its path (sandboxHome()). False: the run's HOME folder is seen where it is. */
  hidesHome: boolean;
  /** Runs each command under a launcher (bwrap, podman) that reports a signal death as exit 128+N. */
  wrapsCommands: boolean;
  /** Runs the agent directly on the host, as the harness's user: reports say so when it did not isolate. */
  onHost: boolean;
  /**
   * Runs the agent on a kernel of its own (a VM): a tracer on the host would see only the VM, so the
   * tracer's wrap goes inside the sandbox's (the sandbox runs the tracer in the guest). Only a tracer
   * that wraps the command can observe: strace, or the sandbox's own `guestTracer` for ebpf.
   */
  tracesInGuest?: boolean;
  /**
   * The host's tracers cannot see the commands this sandbox runs (they run under the engine's runtime,
   * outside the traced process tree and cgroup): the run is planned untraced, recorded as a fallback
   * with this reason, rather than passing as watched with nothing seen.
   */
  hiddenFromTracers?: {
    reason: string;
    fix: string;
    /**
     * The sandbox puts its commands below the cgroup the tracer names (`wrap`'s cgroupTree): a tracer
     * that follows the run's cgroup tree (the compiled collector) sees them; the others do not.
     */
    seenFromCgroupTree?: boolean;
  };
  /**
   * Runs every command as the run's own unprivileged user (SandboxContext.user) with no capabilities
   * and no_new_privs; the harness claims one per run when it is root.
   */
  runsAsRunUser?: boolean;
  /** Used only when asked for by name (it costs seconds per command): never the automatic choice. */
  onlyByName?: boolean;
  /**
   * A config section the sandbox cannot start without, with what is missing and the fix. Such a
   * sandbox is used only when asked for by name.
   */
  needsConfig?: { field: keyof ResolvedConfig; missing: string; fix: string };
};

export interface Sandbox {
  readonly kind: SandboxKind;
  readonly capabilities: SandboxCapabilities;
  available(): Promise<SandboxAvailability>;
  /** The rows `doctor` shows, one per way it can run here (container: per engine). Default: one row, `available()`. */
  doctorRows?(): Promise<{ name: string; availability: SandboxAvailability }[]>;
  start(ctx: SandboxContext): Promise<SandboxSession>;
  /** With tracesInGuest: the ebpf tracer that runs inside the guest (the sandbox's wrap starts it there). */
  readonly guestTracer?: Tracer;
}
