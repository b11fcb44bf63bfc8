import type { ResolvedConfig } from '../../config/schema.js';
import type { CanaryEvidence } from '../../evidence/bundle-types.js';
import {
  CANARY_PREFIX,
  createRedactor,
  type KnownSecret,
  type Redactor,
  redactionMarker,
} from '../../evidence/redact.js';
import { CanaryPieces } from './canary-pieces.js';
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
  const rewrite = canaryRewrite(canaries?.canaries ?? []);
  return createRedactor({
    secrets,
    patterns,
    ...(extra.seen ? { seen: extra.seen } : {}),
    ...(rewrite ? { rewrite } : {}),
  });
}

/**
 * Replaces the run's canaries where they stand encoded (hex, base64, base32, reversed, any case) or
 * as a piece of 10 bytes or more, with the marker the token itself gets: evidence keeps no form
 * of a canary the scan would find.
 */
function canaryRewrite(
  canaries: readonly { kind: string; token: string }[],
): ((text: string) => string) | null {
  if (canaries.length === 0) return null;
  const pieces = new CanaryPieces(canaries.map((c) => c.token));
  const markers = canaries.map((c) => redactionMarker(`${CANARY_PREFIX}${c.kind}`, c.token));
  return (text) => {
    if (text.length < 10) return text;
    const spans = pieces.spans(text);
    if (spans.length === 0) return text;
    let out = '';
    let at = 0;
    for (const s of spans) {
      out += text.slice(at, s.start) + markers[s.index];
      at = s.end;
    }
    return out + text.slice(at);
  };
}
