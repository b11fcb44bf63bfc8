import { z } from 'zod';
import { SANDBOX_KINDS } from '../evidence/kinds.js';
import { BenchmarkConfigSchema, type ResolvedConfig } from './schema.js';

const str = z.string();

/** The stored config: a loaded config (paths absolute, commands as argv), checked as loading would. */
export const ResolvedConfigSchema: z.ZodType<ResolvedConfig> = z.looseObject({
  ...BenchmarkConfigSchema.shape,
  sandbox: z.enum(SANDBOX_KINDS).optional(),
  mounts: z.array(z.looseObject({ path: str, writable: z.boolean(), field: str })).default([]),
  repo: str,
  solution: str.optional(),
  test_command: z.array(str).min(1),
  agent_command: z.array(str).optional(),
  agent_version_command: z.array(str).optional(),
  setup_command: z.array(str).optional(),
  config_path: str,
  config_dir: str,
  prompt: str,
  prompt_file: str.optional(),
});
