import { statSync } from 'node:fs';
import { InputError } from '../errors.js';

/**
 * The largest report file `reports show` prints and `reports site` embeds. A report that big is
 * not something a person reads in a terminal or a browser tab; it is usually a run folder edited
 * by hand or a runaway agent log, and reading it would hold the whole file in memory.
 */
export const REPORT_BROWSE_MAX_BYTES = 16 * 1024 * 1024;

/** Throws (exit 2) naming the file, its size and the limit when the file is over it; else its size. */
export function refuseOversizedReport(file: string, what: string): number {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    // Missing or unreadable: the bounded read that follows says which, naming the file.
    return 0;
  }
  if (size > REPORT_BROWSE_MAX_BYTES) {
    throw new InputError(
      `${file} is ${size} bytes, over the ${REPORT_BROWSE_MAX_BYTES / (1024 * 1024)} MiB (${REPORT_BROWSE_MAX_BYTES} bytes) ${what} shows. Fix: open the file directly (e.g. less ${file}), or re-run 'agentguard analyze' on the run to rewrite its reports.`,
    );
  }
  return size;
}
