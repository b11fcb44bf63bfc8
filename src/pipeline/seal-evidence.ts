import { existsSync } from 'node:fs';
import { runRedactor } from '../analysis/secrets/run-redactor.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { CanaryEvidence } from '../evidence/bundle-types.js';
import { runPath } from '../evidence/layout.js';
import { readJson } from '../evidence/read.js';
import { redactEvidenceFiles } from '../evidence/redact-files.js';
import { EBPF_RAW_LOG, redactEbpfRawLog } from '../observe/ebpf/raw-log-redaction.js';

/**
 * Redact the run's evidence with everything the run knows is secret (its canary tokens, its
 * configured detectors) before it is analysed and reported. Writers already redact credential
 * shapes and key formats as they write; this pass adds the run-specific values and cleans the
 * logs that were appended while the agent ran.
 */
export function sealEvidence(runDir: string): void {
  const config = readJson<ResolvedConfig>(runPath(runDir, 'config'));
  const canaryFile = runPath(runDir, 'canaries');
  const canaries = existsSync(canaryFile) ? readJson<CanaryEvidence>(canaryFile) : null;
  redactEvidenceFiles(runDir, (extra) => runRedactor(config, canaries, extra), {
    [EBPF_RAW_LOG]: redactEbpfRawLog,
  });
}
