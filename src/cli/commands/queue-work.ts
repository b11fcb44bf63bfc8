import { connectRedis } from '../../queue/connect.js';
import { queueCoordinator } from '../../queue/coordinator.js';
import { parseRedisUrl } from '../../queue/redis-url.js';
import { type CliIO, oneLine } from '../io.js';
import type { RemoteWork } from './batch-run.js';

/** The queue, reached now (an unreachable Redis is exit 2 before anything is planned). */
export async function queueWork(io: CliIO, raw: string): Promise<RemoteWork> {
  const target = parseRedisUrl('--queue', raw);
  const redis = await connectRedis(target);
  return {
    describe: `through queue ${target.display}`,
    open: async (ctx, plan) => {
      const c = await queueCoordinator(ctx, plan, redis, target, (line) => io.err(oneLine(line)));
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
