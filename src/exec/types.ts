/** A process to start: what sandboxes and tracers wrap before the runner spawns it. */
export type SpawnSpec = {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /**
   * Where the sandbox records whether it started the command (src/sandbox/start-proof.ts): a
   * command that failed without that record never ran, and its failure is the harness's.
   */
  startProof?: StartProof;
  /**
   * How long the launcher needs between SIGTERM and SIGKILL to stop its command cleanly (the
   * microvm's guest kills the command and drains its trace); the runner's 2 s when unset.
   */
  stopGraceMs?: number;
};

/** A file the sandbox itself writes once it has started the command, out of the command's reach. */
export type StartProof = { sandbox: string; statusFile: string };
