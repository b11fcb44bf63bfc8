import { appendFileSync } from 'node:fs';

/**
 * A bench seam (`npm run bench -- run-phases`): with AGENTGUARD_PHASE_TIMES set to a file, each
 * step of a run appends `{"mark", "ms"}` when it ends, `ms` counted from the process's start, so the
 * bench can say where a run's time goes, the CLI's start included. Nothing reads the file but the
 * bench; unset (always, outside it), a mark costs one property read.
 */
const file = process.env.AGENTGUARD_PHASE_TIMES;

export function markPhase(mark: string): void {
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ mark, ms: Math.round(performance.now() * 10) / 10 })}\n`);
}
