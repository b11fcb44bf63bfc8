import type { TracerKind, TracerName } from '../evidence/kinds.js';
import type { SysEvent } from '../evidence/types.js';
import type { SpawnSpec } from '../exec/types.js';

export type TracerContext = {
  run_id: string;
  /** Folder for the tracer's raw output and scratch files (inside the run directory). */
  scratch_dir: string;
  /** Absolute workspace path, for resolving relative paths and for summaries. */
  workspace: string;
  /** Called for every normalised event as soon as it is parsed (live guard). Optional. */
  onEvent?: (event: SysEvent) => void;
  /**
   * The sandbox runs commands in cgroups below the run's (a container engine): a session that cannot
   * follow the cgroup tree must fail to start rather than step down to one that would see nothing.
   */
  needsCgroupTree?: boolean;
};

export type TracerOutput = {
  events: SysEvent[];
  lost_events: number;
  version: string;
  /** The tracer recorded bind calls: which ports the run's own servers hold (`addr.listened`). */
  binds?: boolean;
  /** Paths as the process wrote them, never resolved by the kernel nor known by inode (bpftrace). */
  paths?: 'as-written';
  /** Non-fatal problems worth showing in observation.json (e.g. bpftrace warnings). */
  warnings: string[];
  /**
   * Set when the event stream has a gap (the tracer died or fell behind): why. The run's evidence
   * then says `incomplete`, never a silent success.
   */
  incomplete?: string;
  /** A step down the session took while tracing (the in-guest collector → strace), recorded as a fallback. */
  fallback?: TracerFallback;
  /** The kind that actually traced, when every command was traced by the step-down. */
  kind?: TracerKind;
};

/** A step down within one tracer kind (the compiled collector → bpftrace), and why. */
export type TracerFallback = { component: 'tracer'; wanted: string; used: string; reason: string };

/** A tracer with a lifetime: start before the agent, wrap its command, stop after it exits. */
export interface TracerSession {
  readonly kind: TracerKind;
  /** Set when this session is not the engine the tracer prefers (recorded and printed as a fallback). */
  readonly fallback?: TracerFallback;
  /** Wall-clock milliseconds at which event `ts` 0 falls (null until known), to time live detection. */
  readonly zeroWallMs: number | null;
  /**
   * Wrap the outermost spawn so that the process and all its descendants are traced. May be called
   * more than once (the agent, then the tests); stop() returns the events of every wrapped tree.
   */
  wrap(spec: SpawnSpec): SpawnSpec;
  /**
   * The cgroup, below the cgroup v2 mount (`/agentguard/<run>`), that this session watches with every
   * cgroup below it: a sandbox whose commands run outside the wrapped process tree (a container
   * engine's runtime) puts them below it. Absent: only the wrapped process tree is traced.
   */
  readonly cgroupTree?: string;
  /** Stop tracing, flush, parse, clean up (cgroups, child processes). Safe to call twice. */
  stop(): Promise<TracerOutput>;
}

export type TracerAvailability = { ok: true; version: string } | { ok: false; reason: string; fix: string };

export interface Tracer {
  readonly kind: TracerName;
  /** Can it run on this host right now? Cheap; never throws. */
  available(): Promise<TracerAvailability>;
  start(ctx: TracerContext): Promise<TracerSession>;
  /**
   * Whether a session started now would follow the run's cgroup tree (`cgroupTree`): the compiled
   * collector does; strace follows the process tree and bpftrace matches the run's cgroup exactly.
   */
  followsCgroupTree?(): Promise<boolean>;
}
