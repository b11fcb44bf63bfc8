import type { ContainerConfig, NetworkConfig } from '../config/schema.js';
import type { SandboxKind } from '../evidence/types.js';
import type { SpawnSpec } from '../exec/types.js';

export type SandboxContext = {
  runId: string;
  /** `<output folder>/runs/<run-id>`: the sandbox hides the whole output folder from the agent. */
  runDir: string;
  /** The only folder the agent may write (besides private scratch areas). */
  repoDir: string;
  /** The agent's HOME on the host side, seeded by the harness. */
  homeDir: string;
  /** The HOME path the sandboxed process sees (the same as homeDir for `local`). */
  homeInside: string;
  /**
   * Host folders the sandboxed commands must read (the agent's program, the task's files). Sandboxes
   * that hide parts of the host (home folders, /tmp) bind these back read-only at the same path.
   */
  visible: string[];
  network: NetworkConfig;
  /** Host folder holding the egress proxy's Unix sockets, bound into the sandbox when allowlisting. */
  proxyDir?: string;
  container?: ContainerConfig;
};

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
  wrap(spec: SpawnSpec): SpawnSpec;
  stop(): Promise<void>;
}

export interface Sandbox {
  readonly kind: SandboxKind;
  available(): Promise<SandboxAvailability>;
  start(ctx: SandboxContext): Promise<SandboxSession>;
}
