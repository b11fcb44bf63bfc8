import type { AgentPlan } from '../agents/types.js';
import { decompressed, undoContentEncoding } from '../analysis/secrets/canary-match.js';
import { CanaryPieces } from '../analysis/secrets/canary-pieces.js';
import { buildDetectors } from '../analysis/secrets/detectors.js';
import type { ResolvedConfig } from '../config/schema.js';
import { CANARY_PREFIX } from '../evidence/redact.js';
import { fingerprint } from '../evidence/secret-formats.js';
import type { NetworkLeak } from '../evidence/types.js';
import { matchAllow } from '../observe/proxy/allow-list.js';
import type { LeakScanner, OutboundScan } from '../observe/proxy/leak-scan.js';
import { PieceLedger } from '../observe/proxy/piece-ledger.js';

/**
 * The credentials the run itself gave the agent (its environment's values, such as its model
 * provider's API key) and the hosts they were given for (the profile's vendor hosts, the model
 * endpoint, hosts its environment's URLs name).
 */
export type OwnCredentials = { values: readonly string[]; hosts: readonly string[] };

/**
 * What the proxy and the DNS responder scan outgoing bytes with: the same detectors as the
 * secret-content check (the run's canary tokens in every encoding it knows, and the configured
 * secret detectors), so "a canary was found" means one thing in what was written and in what left.
 * Canary pieces are put together over the whole run (PieceLedger). A match that only the run's
 * own credentials make (`own`) is exempt on its way to a host they were given for; anywhere else,
 * and any other secret to any host, allowed or not, is a leak. Undefined when the run has no detector.
 */
export function outboundScan(
  cfg: ResolvedConfig,
  canaries: readonly { kind: string; token: string }[],
  own: OwnCredentials = { values: [], hosts: [] },
): OutboundScan | undefined {
  const { detectors, viewsOf } = buildDetectors(cfg, canaries);
  if (detectors.length === 0) return undefined;
  // Values short enough to be common words are never taken for the run's own credential.
  const ownValues = own.values.filter((v) => v.length >= 16);
  const scan: LeakScanner = (text) => {
    // What a detector finds only while the run's own credentials are in the text is theirs.
    const held = ownValues.filter((v) => text.includes(v));
    const without = held.length > 0 ? held.reduce((t, v) => t.split(v).join(' '), text) : text;
    const found: ReturnType<LeakScanner> = [];
    for (const d of detectors) {
      const m = d.find(text);
      if (m === null) continue;
      const isOwn = held.length > 0 && d.kind !== 'canary' && d.find(without) === null;
      found.push({
        detector: d.name,
        kind: d.kind,
        ...(m.encoding ? { encoding: m.encoding } : {}),
        ...(m.fingerprint ? { fingerprint: m.fingerprint } : {}),
        ...(isOwn ? { own: true } : {}),
      });
    }
    return found;
  };
  let ledger: PieceLedger | undefined;
  if (viewsOf !== undefined && canaries.length > 0) {
    const pieces = new CanaryPieces(canaries.map((c) => c.token));
    scan.pieces = (text) => pieces.find(viewsOf(text));
    ledger = new PieceLedger(
      canaries.map((c) => ({
        detector: `${CANARY_PREFIX}${c.kind}`,
        fingerprint: fingerprint(c.token),
        length: Buffer.byteLength(c.token),
      })),
    );
  }
  const exempt =
    ownValues.length > 0 && own.hosts.length > 0
      ? (leak: NetworkLeak, host: string) => leak.own === true && matchAllow(host, 0, own.hosts).allowed
      : undefined;
  return {
    scan,
    inflate: (bytes, limit, contentEncoding) =>
      contentEncoding === undefined
        ? decompressed(bytes, limit)
        : undoContentEncoding(contentEncoding, bytes, limit),
    ...(ledger ? { ledger } : {}),
    ...(exempt ? { exempt } : {}),
  };
}

/**
 * The credentials a plan gives its agent: every value of its environment (only those a detector
 * matches ever matter), for the vendor's hosts, the scripted model's name and the hosts the
 * environment's URLs name (`ANTHROPIC_BASE_URL`).
 */
export function ownCredentials(
  plan: Pick<AgentPlan, 'spec' | 'vendor_hosts' | 'model_endpoint'>,
): OwnCredentials {
  const values = Object.values(plan.spec.env ?? {});
  const hosts = new Set([
    ...(plan.vendor_hosts ?? []),
    ...(plan.model_endpoint ? [plan.model_endpoint.host] : []),
  ]);
  for (const v of values) {
    if (!/^https?:\/\//i.test(v)) continue;
    try {
      hosts.add(new URL(v).hostname);
    } catch {
      // not a URL after all
    }
  }
  return { values, hosts: [...hosts].filter((h) => h !== '') };
}
