import { loadMatrixFile } from '../../batch/batch-file.js';
import { checkQueueAgent } from '../../queue/task-bundle.js';
import { type CliIO, outputDir } from '../io.js';
import { type BatchFlags, countFlag, loadTaskConfigs, startBatch } from './batch-run.js';
import { type QueueFlags, queueWork } from './queue-work.js';
import { resumeFromFlag } from './resume.js';

export type MatrixFlags = BatchFlags & QueueFlags;

/** agents × tasks × trials from a matrix file; with --queue, run by queue workers on any host. */
export async function matrixCommand(io: CliIO, file: string, flags: MatrixFlags): Promise<number> {
  if (flags.resume !== undefined)
    return resumeFromFlag(io, 'matrix', file, { ...flags, resume: flags.resume });
  const m = loadMatrixFile(file);
  const configs = loadTaskConfigs(m.configPaths, outputDir(flags));
  const trials = countFlag('--trials', flags.trials, m.trials);
  const remote =
    flags.queue === undefined ? undefined : await queueWork(io, { ...flags, queue: flags.queue });
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
