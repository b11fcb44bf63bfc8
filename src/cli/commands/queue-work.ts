import { ConfigError } from '../../errors.js';
import { connectRedis } from '../../queue/connect.js';
import { queueCoordinator } from '../../queue/coordinator.js';
import { queueTarget } from '../../queue/redis-url.js';
import { loadRegisteredKeys } from '../../queue/worker-key.js';
import { type CliIO, oneLine } from '../io.js';
import type { RemoteWork } from './batch-run.js';

/** The flags of a command that runs a batch through the queue (matrix, resume). */
export type QueueFlags = { queue?: string; queuePasswordFile?: string; workerKeys?: string };

/**
 * The queue, reached now (an unreachable Redis is exit 2 before anything is planned), with the
 * registered workers' keys read first: a result is accepted only from one of them.
 */
export async function queueWork(io: CliIO, flags: QueueFlags & { queue: string }): Promise<RemoteWork> {
  if (flags.workerKeys === undefined)
    throw new ConfigError(
      '--queue needs --worker-keys FILE|DIR: a result is accepted only when a worker registered there signed it. ' +
        "Fix: copy each worker's key (agentguard worker --keygen prints it; the worker writes KEY.pub) into a folder and pass it.",
    );
  const keys = loadRegisteredKeys(String(flags.workerKeys));
  const target = queueTarget(
    String(flags.queue),
    flags.queuePasswordFile === undefined ? undefined : String(flags.queuePasswordFile),
    process.env,
  );
  const redis = await connectRedis(target);
  return {
    describe: `through queue ${target.display}, ${keys.size} registered worker key(s)`,
    open: async (ctx, plan) => {
      const c = await queueCoordinator(ctx, plan, redis, target, keys, (line) => io.err(oneLine(line)));
      return {
        worker: c.worker,
        close: async () => {
          await c.close();
          redis.disconnect();
        },
      };
    },
  };
}
