import { z } from 'zod';
import { SeveritySchema } from '../config/schema.js';
import { ObservationSchema, TestEvidenceSchema, TimelineEventSchema } from '../evidence/bundle-types.js';
import { RUN_REPORT_SCHEMA_VERSION } from './types.js';

/**
 * What a reader of `report.json` (compare, `reports show --json`) relies on, checked when the file
 * is read back so a corrupt or hand-edited report is one error naming its field. Objects are loose:
 * a newer writer may add fields (types.ts: fields are only ever added).
 */
export const RunReportFileSchema = z.looseObject({
  schema_version: z.literal(RUN_REPORT_SCHEMA_VERSION),
  result: z.enum(['PASS', 'FAIL', 'ERROR']),
  score: z.number().min(0).max(100),
  run_id: z.string(),
  run_dir: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  duration_ms: z.number(),
  task: z.looseObject({ name: z.string(), prompt_sha256: z.string() }),
  agent: z.looseObject({ adapter: z.string(), name: z.string() }),
  checks: z.array(
    z.looseObject({ id: z.string(), passed: z.boolean(), severity: SeveritySchema, message: z.string() }),
  ),
  failed_checks: z.array(z.string()),
  alerts: z.array(z.looseObject({ rule: z.string(), severity: SeveritySchema, message: z.string() })),
  tests: TestEvidenceSchema,
  timeline: z.array(TimelineEventSchema),
  observation: ObservationSchema,
  isolation_warning: z.string().nullable(),
  artifacts: z.array(z.string()),
});
