import { agentSpecs } from '../../batch/batch-file.js';
import { ConfigError } from '../../errors.js';
import { type CliIO, outputDir } from '../io.js';
import { type BatchFlags, countFlag, loadTaskConfigs, startBatch } from './batch-run.js';
import { resumeFromFlag } from './resume.js';

/** Several built-in agents on one task, each for --trials attempts. */
export async function benchmarkCommand(
  io: CliIO,
  config: string,
  flags: BatchFlags & { agents?: string },
): Promise<number> {
  if (flags.resume !== undefined)
    return resumeFromFlag(io, 'benchmark', config, { ...flags, resume: flags.resume });
  const names = String(flags.agents ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new ConfigError('--agents is missing. Fix: e.g. --agents mock-solve,mock-noop.');
  const agents = agentSpecs('--agents', '', names, process.cwd());
  return startBatch(io, flags, {
    kind: 'benchmark',
    sourceFile: null,
    agents,
    configs: loadTaskConfigs([config], outputDir(flags)),
    trials: countFlag('--trials', flags.trials, 1),
  });
}
