import { errorMessage } from '../../errors.js';
import { readLines } from '../line-reader.js';
import type { TracerOutput } from '../types.js';
import type { RecordStream } from './record-stream.js';
import { type RunCgroup, removeCgroup } from './run-cgroup.js';

/**
 * The end both ebpf engines share once their source has stopped writing the run's file: the lines
 * not parsed live are read from it, the stream is finished, the run's cgroup removed, and the output
 * says what was seen, what was lost and — `incomplete` — why the stream may have a gap.
 */
export async function closeStream(run: {
  stream: RecordStream;
  source: string;
  rawPath: string;
  cgroup: RunCgroup;
  version: string;
  warnings: string[];
  incomplete: string | undefined;
  binds: boolean;
}): Promise<TracerOutput> {
  let { incomplete } = run;
  // Without a listener only the clock lines were read live; the rest are read now, from the file.
  if (!run.stream.live) {
    const found = await readLines(run.rawPath, (line, complete) => run.stream.line(line, complete)).catch(
      (err: unknown) => {
        incomplete ??= `could not read the output of ${run.source}: ${errorMessage(err)}`;
        return true;
      },
    );
    if (!found) incomplete ??= `${run.source} wrote no output file at ${run.rawPath}`;
  }
  const finished = run.stream.finish();
  const warnings = [...run.warnings];
  try {
    await removeCgroup(run.cgroup);
  } catch (err) {
    warnings.push(`could not remove cgroup ${run.cgroup.dir}: ${errorMessage(err)}`);
  }
  return {
    events: run.stream.events,
    lost_events: finished.lost,
    version: run.version,
    binds: run.binds,
    warnings: [...warnings, ...finished.warnings, ...(incomplete ? [incomplete] : [])],
    ...(incomplete ? { incomplete } : {}),
  };
}
