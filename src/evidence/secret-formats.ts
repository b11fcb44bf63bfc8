import { createHash } from 'node:crypto';

// The credential formats agentguard knows. They live with the evidence vocabulary because two layers
// use them: the secret-content check finds them in added lines (src/analysis/secrets/detectors.ts),
// and the evidence writers redact them from every artifact (./redact.ts), which sit below analysis.

/** The credential formats a config's `secret_presets` may name. */
export const SECRET_PRESETS = [
  'private-key',
  'aws-access-key',
  'github-token',
  'slack-token',
  'openai-key',
  'anthropic-key',
  'generic-api-key',
  'jwt',
] as const;
export type SecretPreset = (typeof SECRET_PRESETS)[number];

/**
 * A built-in detector. `regex` must be global; when it has a `secret` group, that group is the
 * value (the fingerprint covers only it, not the key name around it). `accept` rejects look-alikes.
 */
export type PresetDetector = { regex: RegExp; accept?: (value: string) => boolean };

/** Bits per character of `value`'s own character distribution. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Most of `value` is made of plain words (`test_token_value_12345`, `process.env.API_TOKEN`):
 * separator-split segments of three or more single-case letters. Random credentials almost never
 * contain those.
 */
function wordy(value: string): boolean {
  const wordChars = value
    .split(/[_.\-/]/)
    .filter((seg) => seg.length >= 3 && /^(?:[a-z]+|[A-Z]+)$/.test(seg))
    .reduce((n, seg) => n + seg.length, 0);
  return wordChars * 2 >= value.length;
}

/**
 * Random credentials mix letters and digits and rarely repeat characters; placeholders
 * (`your-api-key-here`, `changeme_changeme1`) and references (`process.env.API_TOKEN`) do not.
 * 3.5 bits per character keeps 20+ character random strings and drops repetitive values.
 */
export function looksRandom(value: string): boolean {
  return /[0-9]/.test(value) && /[A-Za-z]/.test(value) && !wordy(value) && shannonEntropy(value) >= 3.5;
}

/** First 8 hex characters of the SHA-256 of a value: enough to correlate, far too little to recover it. */
export function fingerprint(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 8);
}

/**
 * Presets whose shapes are specific enough to be on by default and to be redacted from every
 * artifact whatever the config says: a match is a credential, hardly ever ordinary code.
 */
export const HIGH_PRECISION_PRESETS = [
  'private-key',
  'aws-access-key',
  'github-token',
  'slack-token',
  'openai-key',
  'anthropic-key',
] as const satisfies readonly SecretPreset[];

/** Keyed by the config's preset union, so adding a preset name without a detector does not compile. */
export const PRESET_DETECTORS: Record<SecretPreset, PresetDetector> = {
  'private-key': { regex: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g },
  'aws-access-key': { regex: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  'github-token': { regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  'slack-token': { regex: /\bxox[baprs]-[A-Za-z0-9-]{10,}/g },
  // Anthropic keys also start with `sk-`; leave them to their own preset.
  'openai-key': { regex: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  'anthropic-key': { regex: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  'generic-api-key': {
    regex:
      /(?:api[_-]?key|secret|token|passw(?:or)?d|access[_-]?key|auth[_-]?key|credential)[A-Za-z0-9_-]{0,40}["']?\s{0,8}(?::=|=>|[:=])\s{0,8}["'`]?(?<secret>[A-Za-z0-9_+/=.~-]{20,})/gi,
    accept: looksRandom,
  },
  jwt: { regex: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
};
