import type { ResolvedConfig } from '../../config/schema.js';
import type { CanaryEvidence } from '../../evidence/bundle-types.js';
import { CANARY_PREFIX, createRedactor, type KnownSecret, type Redactor } from '../../evidence/redact.js';
import { redactionSources } from './detectors.js';

/**
 * The redactor for one run: the built-in shapes and key formats, plus this run's canary tokens and
 * configured detectors (the same definitions the secret-content check uses). Pure.
 */
export function runRedactor(
  config: ResolvedConfig,
  canaries: CanaryEvidence | null,
  extra: { seen?: Map<string, string>; secrets?: readonly KnownSecret[] } = {},
): Redactor {
  const { patterns, literals } = redactionSources(config);
  const secrets: KnownSecret[] = [
    ...(canaries?.canaries ?? []).map((c) => ({
      name: `${CANARY_PREFIX}${c.kind}`,
      value: c.token,
      hashed: true,
    })),
    ...literals.map((l) => ({ ...l, hashed: false })),
    ...(extra.secrets ?? []),
  ];
  return createRedactor({ secrets, patterns, ...(extra.seen ? { seen: extra.seen } : {}) });
}
