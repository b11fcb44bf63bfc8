/** A process to start: what sandboxes and tracers wrap before the runner spawns it. */
export type SpawnSpec = {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
};
