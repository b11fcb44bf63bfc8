import { RUN_FILES } from '../evidence/layout.js';
import { MANIFEST_FILE, TRACE_FILE } from '../provenance/manifest-schema.js';
import { REPORT_FILES } from '../reports/reporters.js';

/**
 * Every file name a run folder can hold, as the run layout, the reporters and provenance name
 * them: a contract's `evidence` may only list these, so a typo or a renamed file is found without
 * running anything.
 */
export const RUN_FOLDER_FILES: ReadonlySet<string> = new Set<string>([
  ...Object.values(RUN_FILES),
  ...REPORT_FILES,
  MANIFEST_FILE,
  TRACE_FILE,
]);
