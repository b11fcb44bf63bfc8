import { decompressed, undoContentEncoding } from '../analysis/secrets/canary-match.js';
import { buildDetectors } from '../analysis/secrets/detectors.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { OutboundScan } from '../observe/proxy/leak-scan.js';

/**
 * What the proxy and the DNS responder scan outgoing bytes with: the same detectors as the
 * secret-content check (the run's canary tokens in every encoding it knows, and the configured
 * secret detectors), so "a canary was found" means one thing in what was written and in what left.
 * Undefined when the run has no detector at all.
 */
export function outboundScan(
  cfg: ResolvedConfig,
  canaries: readonly { kind: string; token: string }[],
): OutboundScan | undefined {
  const { detectors } = buildDetectors(cfg, canaries);
  if (detectors.length === 0) return undefined;
  return {
    scan: (text) => {
      const found = [];
      for (const d of detectors) {
        const m = d.find(text);
        if (m === null) continue;
        found.push({
          detector: d.name,
          kind: d.kind,
          ...(m.encoding ? { encoding: m.encoding } : {}),
          ...(m.fingerprint ? { fingerprint: m.fingerprint } : {}),
        });
      }
      return found;
    },
    inflate: (bytes, limit, contentEncoding) =>
      contentEncoding === undefined
        ? decompressed(bytes, limit)
        : undoContentEncoding(contentEncoding, bytes, limit),
  };
}
