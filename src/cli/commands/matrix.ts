import { loadMatrixFile } from '../../batch/batch-file.js';
import { connectRedis } from '../../queue/connect.js';
import { queueCoordinator } from '../../queue/coordinator.js';
import { parseRedisUrl } from '../../queue/redis-url.js';
import { checkQueueAgent } from '../../queue/task-bundle.js';
import { type CliIO, oneLine, outputDir } from '../io.js';
import { type BatchFlags, countFlag, loadTaskConfigs, type RemoteWork, startBatch } from './batch-run.js';
import { resumeFromFlag } from './resume.js';

export type MatrixFlags = BatchFlags & { queue?: string };

/** agents × tasks × trials from a matrix file; with --queue, run by queue workers on any host. */
export async function matrixCommand(io: CliIO, file: string, flags: MatrixFlags): Promise<number> {
  if (flags.resume !== undefined)
    return resumeFromFlag(io, 'matrix', file, { ...flags, resume: flags.resume });
  const m = loadMatrixFile(file);
  const configs = loadTaskConfigs(m.configPaths, outputDir(flags));
  const trials = countFlag('--trials', flags.trials, m.trials);
  const remote = flags.queue === undefined ? undefined : await queueWork(io, String(flags.queue));
  if (remote) for (const a of m.agents) checkQueueAgent(a);
  return startBatch(io, flags, {
    kind: 'matrix',
    sourceFile: m.file,
    agents: m.agents,
    configs,
    trials,
    // Through a queue every attempt is enqueued at once: the workers' --concurrency is the limit,
    // not this host's cores (nor the file's `workers`, which is meant for one machine).
    ...(remote
      ? { remote, fileWorkers: Math.min(10_000, m.agents.length * configs.length * trials) }
      : m.workers !== undefined
        ? { fileWorkers: m.workers }
        : {}),
  });
}

/** The queue, reached now (an unreachable Redis is exit 2 before anything is planned). */
async function queueWork(io: CliIO, raw: string): Promise<RemoteWork> {
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
