import { ModelServer, type ModelServerAddress, type ModelServerOptions } from './server.js';
import { loadTrajectory } from './trajectory.js';
import type { Trajectory } from './types.js';

export type StartModelServerOptions = Omit<ModelServerOptions, 'trajectory'> & {
  /** A trajectory file (YAML or JSON), or one already loaded. */
  script: string | Trajectory;
};

export type RunningModelServer = ModelServerAddress & { server: ModelServer };

/**
 * Load the trajectory and start a scripted model server on a free loopback port (or `port`).
 * Throws ConfigError for a bad trajectory, SetupError when it cannot listen or record.
 * Call `server.stop()` to close it and get the records.
 */
export async function startModelServer(opts: StartModelServerOptions): Promise<RunningModelServer> {
  const { script, ...rest } = opts;
  const trajectory = typeof script === 'string' ? loadTrajectory(script) : script;
  const server = new ModelServer({ ...rest, trajectory });
  const address = await server.start();
  return { ...address, server };
}

export { EXHAUSTED_TEXT } from './player.js';
export { type ModelSummary, summarizeRecords } from './records.js';
export { ModelServer, type ModelServerAddress, type ModelServerOptions } from './server.js';
export { loadTrajectory, parseTrajectory } from './trajectory.js';
export type { ModelRecord, Trajectory } from './types.js';
