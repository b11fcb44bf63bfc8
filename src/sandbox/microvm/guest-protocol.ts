/**
 * What the harness and the guest runner say over the control port: the guest says it is up, the
 * harness answers with the command to run (and the time, so the guest's clock and therefore the
 * tracer's timestamps match the harness's), the guest reports how the command ended. One JSON
 * object a line. Types and names only: the guest runner imports this from dist/.
 */

import type { GuestTraceEnd } from '../../observe/guest-trace-end.js';

/** virtio-serial port names (`/sys/class/virtio-ports/*\/name` in the guest). */
export const PORTS = {
  control: 'agentguard.control',
  stdout: 'agentguard.stdout',
  stderr: 'agentguard.stderr',
  net: 'agentguard.net',
  trace: 'agentguard.trace',
} as const;

/**
 * Where the guest runner serves the harness's sockets; bound into the inner bwrap as its proxy
 * folder. On the guest's devtmpfs: the only writable guest-wide place that shadows no host path
 * (the inner bwrap gives the agent a /dev of its own, so the agent never sees it there).
 */
export const GUEST_NET_DIR = '/dev/agentguard-net';

export type GuestHello = { ready: true; uptime_s: number };

export type GuestCommand = {
  /** The harness's clock (ms since the epoch) when it sent this line. */
  now_ms: number;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /**
   * strace's command and options, run outside the inner sandbox; `-o <trace port> --` is added in the
   * guest. With `collector` set, strace is the step-down when the collector cannot start.
   */
  trace?: string[];
  /** The compiled eBPF collector (on the host root): it traces the command's cgroup from the guest's kernel. */
  collector?: string;
  /** Harness sockets served in GUEST_NET_DIR, with the bridge key to leave beside each (read once, then removed). */
  sockets?: { name: string; key?: string }[];
  /** resolv.conf to serve in GUEST_NET_DIR. */
  resolv?: string;
  /** pids.max of the cgroup the command runs in (the guest's fork-bomb limit). */
  pids_max: number;
};

export type GuestExit = (
  | { exit: number; signal: null }
  | { exit: null; signal: string }
  | { error: string }
) & { trace?: GuestTraceEnd };

/** The harness asks the guest to end the command early (the run's time limit or a signal): it still drains the trace. */
export type GuestStop = { stop: true };
