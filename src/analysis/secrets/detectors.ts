import type { ResolvedConfig } from '../../config/schema.js';
import { CANARY_PREFIX, markerName, markersIn, type SecretPattern } from '../../evidence/redact.js';
import { fingerprint, PRESET_DETECTORS } from '../../evidence/secret-formats.js';
import { CanarySet, type CarrierView, carrierViews } from './canary-match.js';

export { canaryForms } from './canary-match.js';

/** A match reported without its value: at most a short fingerprint to tell matches apart (and how a canary was encoded). */
export type SecretMatch = { fingerprint?: string; encoding?: string };

export type SecretDetector = {
  name: string;
  kind: 'literal' | 'pattern' | 'preset' | 'canary';
  find: (text: string) => SecretMatch | null;
};

/** `viewsOf`: the views of a text the canary detectors read (the last text's, kept), when there are canaries. */
export type DetectorSet = {
  detectors: SecretDetector[];
  invalid: string[];
  viewsOf?: (text: string) => CarrierView[];
};

/** One configured or preset detector, as the check and the redactor both use it. */
type DetectorSource =
  | { name: string; kind: 'literal'; literal: string }
  | { name: string; kind: 'pattern' | 'preset'; regex: RegExp; accept?: (value: string) => boolean };

/** The configured literal and pattern detectors, then the enabled presets; names of unusable ones. */
function detectorSources(config: ResolvedConfig): { sources: DetectorSource[]; invalid: string[] } {
  const sources: DetectorSource[] = [];
  const invalid: string[] = [];
  for (const det of config.secret_detectors) {
    if (det.literal !== undefined) {
      sources.push({ name: det.name, kind: 'literal', literal: det.literal });
    } else if (det.pattern !== undefined) {
      try {
        sources.push({ name: det.name, kind: 'pattern', regex: new RegExp(det.pattern, 'g') });
      } catch {
        invalid.push(det.name);
      }
    } else {
      invalid.push(det.name);
    }
  }
  for (const preset of new Set(config.secret_presets)) {
    sources.push({ name: preset, kind: 'preset', ...PRESET_DETECTORS[preset] });
  }
  return { sources, invalid };
}

/**
 * The detectors of the secret-content check. Each finds its secret in raw text and also its own
 * redaction marker: artifacts are written redacted (src/evidence/redact.ts), so in a stored patch a
 * secret this detector matched appears as `[REDACTED:<name>:<fingerprint>]`. With canaries, a
 * canary token (or its marker) in added content is a finding too.
 */
export function buildDetectors(
  config: ResolvedConfig,
  canaries: readonly { kind: string; token: string }[] = [],
): DetectorSet {
  const { sources, invalid } = detectorSources(config);
  let viewsOf: ((text: string) => CarrierView[]) | undefined;
  const detectors: SecretDetector[] = sources.map((src) => {
    if (src.kind === 'literal') {
      const literal = src.literal;
      // No fingerprint: every match is the literal itself, and a hash of a short literal could be
      // brute-forced back to it.
      return {
        name: src.name,
        kind: 'literal',
        find: (t) => (t.includes(literal) || markerOf(src.name, t) ? {} : null),
      };
    }
    const { regex, accept } = src;
    return {
      name: src.name,
      kind: src.kind,
      find: (t) => firstMatch(regex, t, accept) ?? markerOf(src.name, t),
    };
  });
  // Canaries count only where some content detection is on: with none, the check is off.
  if (detectors.length > 0 && canaries.length > 0) {
    // All tokens are looked for at once, over the views of a text, for the last text asked about.
    const set = new CanarySet(canaries.map((c) => c.token));
    let last: { text: string; views: CarrierView[]; found: Map<number, string> } | undefined;
    const lastFor = (t: string) => {
      if (last?.text !== t) {
        const views = carrierViews(t);
        last = { text: t, views, found: set.find(views) };
      }
      return last;
    };
    const foundIn = (t: string): Map<number, string> => lastFor(t).found;
    viewsOf = (t) => lastFor(t).views;
    canaries.forEach((c, index) => {
      const name = `${CANARY_PREFIX}${c.kind}`;
      detectors.push({
        name,
        kind: 'canary',
        find: (t) => {
          const encoding = foundIn(t).get(index);
          return encoding ? { fingerprint: fingerprint(c.token), encoding } : markerOf(name, t);
        },
      });
    });
  }
  return { detectors, invalid, ...(viewsOf ? { viewsOf } : {}) };
}

/** The configured detectors as redaction patterns and literals, the same definitions the check uses. */
export function redactionSources(config: ResolvedConfig): {
  patterns: SecretPattern[];
  literals: { name: string; value: string }[];
} {
  const patterns: SecretPattern[] = [];
  const literals: { name: string; value: string }[] = [];
  for (const src of detectorSources(config).sources) {
    if (src.kind === 'literal') literals.push({ name: src.name, value: src.literal });
    else patterns.push({ name: src.name, regex: src.regex, ...(src.accept ? { accept: src.accept } : {}) });
  }
  return { patterns, literals };
}

function markerOf(name: string, text: string): SecretMatch | null {
  if (!text.includes('[REDACTED:')) return null;
  const wanted = markerName(name);
  const found = markersIn(text).find((m) => m.detector === wanted);
  if (!found) return null;
  return found.fingerprint ? { fingerprint: found.fingerprint } : {};
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
