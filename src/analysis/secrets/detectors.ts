import { createHash } from 'node:crypto';
import type { ResolvedConfig } from '../../config/schema.js';
import { PRESET_DETECTORS } from './presets.js';

/** A match reported without its value: at most a short fingerprint to tell matches apart. */
export type SecretMatch = { fingerprint?: string };

export type SecretDetector = {
  name: string;
  kind: 'literal' | 'pattern' | 'preset';
  find: (text: string) => SecretMatch | null;
};

export type DetectorSet = { detectors: SecretDetector[]; invalid: string[] };

/** First 8 hex characters of the SHA-256 of a value: enough to correlate, far too little to recover it. */
export function fingerprint(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 8);
}

/** The configured literal and pattern detectors, then the enabled presets. */
export function buildDetectors(config: ResolvedConfig): DetectorSet {
  const detectors: SecretDetector[] = [];
  const invalid: string[] = [];
  for (const det of config.secret_detectors) {
    if (det.literal !== undefined) {
      const literal = det.literal;
      // No fingerprint: every match is the literal itself, and a hash of a short literal could be
      // brute-forced back to it.
      detectors.push({ name: det.name, kind: 'literal', find: (t) => (t.includes(literal) ? {} : null) });
    } else if (det.pattern !== undefined) {
      let regex: RegExp;
      try {
        regex = new RegExp(det.pattern, 'g');
      } catch {
        invalid.push(det.name);
        continue;
      }
      detectors.push({ name: det.name, kind: 'pattern', find: (t) => firstMatch(regex, t) });
    } else {
      invalid.push(det.name);
    }
  }
  for (const preset of new Set(config.secret_presets)) {
    const { regex, accept } = PRESET_DETECTORS[preset];
    detectors.push({ name: preset, kind: 'preset', find: (t) => firstMatch(regex, t, accept) });
  }
  return { detectors, invalid };
}

function firstMatch(regex: RegExp, text: string, accept?: (value: string) => boolean): SecretMatch | null {
  for (const m of text.matchAll(regex)) {
    const value = m.groups?.secret ?? m[0];
    if (value === '') continue;
    if (accept && !accept(value)) continue;
    return { fingerprint: fingerprint(value) };
  }
  return null;
}
