import { loadMatrixFile } from '../../batch/batch-file.js';
import { type CliIO, outputDir } from '../io.js';
import { type BatchFlags, countFlag, loadTaskConfigs, startBatch } from './batch-run.js';
import { resumeFromFlag } from './resume.js';

/** agents × tasks × trials from a matrix file. */
export async function matrixCommand(io: CliIO, file: string, flags: BatchFlags): Promise<number> {
  if (flags.resume !== undefined)
    return resumeFromFlag(io, 'matrix', file, { ...flags, resume: flags.resume });
  const m = loadMatrixFile(file);
  return startBatch(io, flags, {
    kind: 'matrix',
    sourceFile: m.file,
    agents: m.agents,
    configs: loadTaskConfigs(m.configPaths, outputDir(flags)),
    trials: countFlag('--trials', flags.trials, m.trials),
    ...(m.workers !== undefined ? { fileWorkers: m.workers } : {}),
  });
}
