import { fingerprint, HIGH_PRECISION_PRESETS, looksRandom, PRESET_DETECTORS } from './secret-formats.js';

/**
 * A value the run knows to be secret (a canary token, a configured literal). `hashed: false` for
 * values a short hash could be brute-forced back to, as the secret-content check does for literals.
 */
export type KnownSecret = { name: string; value: string; hashed: boolean };

/**
 * A pattern for secrets, global. When it has a `secret` group, only that group is replaced and it
 * must end the match (the text before it, such as a key name, stays readable).
 */
export type SecretPattern = { name: string; regex: RegExp; accept?: (value: string) => boolean };

export type RedactorOptions = {
  secrets?: readonly KnownSecret[];
  /** Run-specific patterns (the configured detectors), tried before the built-in ones. */
  patterns?: readonly SecretPattern[];
  /**
   * Collects every value a pattern replaced (value → detector), so that raw text which splits it
   * differently (a tracer's log, one argv element a line) can then be cleaned by value.
   */
  seen?: Map<string, string>;
  /**
   * Run-specific rewriting done first: the run's canary tokens in the encoded forms and pieces the
   * matcher finds (hex, base64, reversed, any case), which no fixed value or pattern names.
   */
  rewrite?: (text: string) => string;
};

export type Redactor = {
  text: (text: string) => string;
  /** A deep copy of a JSON-like value with every string (and object key) redacted. */
  value: <T>(value: T) => T;
};

/** Where a line of a private-key block was, once redacted; it carries no detector so it is not counted twice. */
export const REDACTED_LINE = '[REDACTED]';

/** `[REDACTED:openai-key:3f2a9c1b]`: the detector, and a fingerprint so equal secrets stay equal. */
export const MARKER = /\[REDACTED:([A-Za-z0-9_.-]+)(?::([0-9a-f]{8}))?\]/g;

/** Shorter values get no fingerprint: 8 hex characters of an unsalted hash would give a short password away. */
const MIN_HASHED_LENGTH = 12;

/** Canary markers are named `canary-<kind>`, so a leak of one reads as what it is. */
export const CANARY_PREFIX = 'canary-';

export function markerName(detector: string): string {
  return detector.replace(/[^A-Za-z0-9_.-]+/g, '-');
}

export function redactionMarker(detector: string, value: string, hashed = true): string {
  const print = hashed && value.length >= MIN_HASHED_LENGTH ? `:${fingerprint(value)}` : '';
  return `[REDACTED:${markerName(detector)}${print}]`;
}

/** The markers in a text, in order. */
export function markersIn(text: string): { detector: string; fingerprint?: string }[] {
  return [...text.matchAll(MARKER)].map((m) => ({
    detector: m[1] as string,
    ...(m[2] !== undefined ? { fingerprint: m[2] } : {}),
  }));
}

// Option names and header names whose value is a credential.
const CRED_WORD = `(?:api[-_]?key|apikey|access[-_]?token|auth[-_]?token|refresh[-_]?token|token|password|passwd|secret|client[-_]?secret|private[-_]?key)`;
const FLAG = new RegExp(`^--?${CRED_WORD}$`, 'i');
// JSON keys whose string value is a credential (HTTP header records, request bodies).
const CRED_KEY =
  /^(?:authorization|proxy-authorization|x-api-key|x-auth-token|api[-_]?key|apikey|password|passwd|access[-_]?token|auth[-_]?token|client[-_]?secret)$/i;
// A value stops at whitespace, quotes and backslashes, so a JSON or shell string around it stays whole.
const VALUE = String.raw`[^\s"'\\\`]+`;

/** `--api-key`, `--token`, `-password`: an option whose next argument is a credential. */
export function isCredentialOption(arg: string): boolean {
  return FLAG.test(arg);
}

/** Credential shapes that are not key formats: command-line options, HTTP headers, URLs with a password. */
const SHAPES: SecretPattern[] = [
  {
    name: 'http-auth',
    regex: new RegExp(
      String.raw`\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|bot|digest)\s+)?(?<secret>${VALUE})`,
      'gi',
    ),
  },
  {
    name: 'http-auth',
    regex: new RegExp(
      String.raw`\b(?:x-api-key|x-auth-token|x-access-token|api-key)["']?\s*:\s*["']?(?<secret>${VALUE})`,
      'gi',
    ),
  },
  { name: 'bearer-token', regex: /\bbearer\s+(?<secret>[A-Za-z0-9._~+/=-]{16,})/gi },
  { name: 'url-password', regex: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@"'\\]*:(?<secret>[^\s/@"'\\]+)(?=@)/gi },
  {
    name: 'cli-credential',
    regex: new RegExp(String.raw`(?<![\w-])--?${CRED_WORD}=(?<secret>${VALUE})`, 'gi'),
  },
  {
    name: 'cli-credential',
    regex: new RegExp(
      String.raw`(?<![\w-])--?${CRED_WORD}(?:\s+|["']?,\s*["'])(?<secret>[^\s"'\\\`,-][^\s"'\\\`,]*)`,
      'gi',
    ),
  },
  {
    // `aws_secret_access_key = …` in an INI file: lower case is also code, so only a random value counts.
    name: 'env-credential',
    regex:
      /\b[a-z][a-z0-9_]*(?:_key|_token|_secret|_password)["']?\s*[:=]\s*["']?(?<secret>[A-Za-z0-9+/=_.~-]{16,})/g,
    accept: looksRandom,
  },
  {
    name: 'env-credential',
    regex:
      /\b[A-Z][A-Z0-9_]*(?:_KEY|_TOKEN|_SECRET|_PASSWORD|_PASSWD|_PWD)["']?\s*[:=]\s*["']?(?<secret>[^\s"'\\`$]{8,})/g,
    // `API_KEY = process.env.API_KEY` or `= getToken()` in code names a secret, it does not hold one.
    accept: (value) => !/[()[\]{}]|^(?:process\.env|os\.environ|env\.)/.test(value),
  },
];

/** The built-in key formats (private keys are handled as whole blocks first). */
const FORMATS: SecretPattern[] = HIGH_PRECISION_PRESETS.filter((p) => p !== 'private-key').map((name) => ({
  name,
  ...PRESET_DETECTORS[name],
}));

/**
 * Every built-in format and shape above contains one of these; text without any skips them, which
 * keeps the redaction of a large syscall log (mostly paths) cheap. Keep it in step with the rules.
 */
const TRIGGER =
  /authoriz|api[-_]?key|bearer|:\/\/|token|passw|secret|private|_key|_pwd|AKIA|ASIA|gh[pousr]_|github_pat_|xox|sk-/i;

/** A value that names a secret rather than holding it: `$TOKEN`, `${TOKEN}`, `%TOKEN%`, or an existing marker. */
function isReference(value: string): boolean {
  return value === '' || /^(?:\$|%|\[REDACTED)/.test(value);
}

function replacePattern(
  text: string,
  pattern: SecretPattern,
  mark: (name: string, value: string) => string,
): string {
  return text.replace(pattern.regex, (...args: unknown[]) => {
    const match = args[0] as string;
    const last = args[args.length - 1];
    const groups =
      typeof last === 'object' && last !== null ? (last as Record<string, string | undefined>) : {};
    const value = groups.secret ?? match;
    if (isReference(value) || !match.endsWith(value)) return match;
    if (pattern.accept && !pattern.accept(value)) return match;
    return match.slice(0, match.length - value.length) + mark(pattern.name, value);
  });
}

const KEY_HEADER = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----/g;
// A line break as text or as a JSON escape, so a block inside an escaped string is found too.
const BREAK = /(\r?\n|(?:\\r)?\\n)/;
const BASE64_TAIL = /^(?:(?:\r?\n|(?:\\r)?\\n)[+ -]?[ \t]*[A-Za-z0-9+/=]{8,}[ \t]*)*/;

/**
 * Private-key blocks. Every line of the block keeps its place (a patch's hunk counts stay right):
 * the header line becomes the marker and the other lines `[REDACTED]`, each behind the prefix it
 * had (`+` in a patch). The fingerprint covers the key's base64 only, wherever the block sits.
 */
function redactKeyBlocks(text: string, mark: (name: string, value: string) => string): string {
  if (!text.includes('PRIVATE KEY')) return text;
  let out = '';
  let pos = 0;
  for (const m of text.matchAll(KEY_HEADER)) {
    if (m.index < pos) continue;
    const footer = `-----END ${m[1]}PRIVATE KEY${m[2] ?? ''}-----`;
    const bodyStart = m.index + m[0].length;
    const endAt = text.indexOf(footer, bodyStart);
    const end =
      endAt >= 0 && endAt - bodyStart < 65536
        ? endAt + footer.length
        : bodyStart + (BASE64_TAIL.exec(text.slice(bodyStart))?.[0].length ?? 0);
    const body = text.slice(bodyStart, endAt >= 0 && end === endAt + footer.length ? endAt : end);
    const key = body.replace(/(?:\\r)?\\n/g, '\n').replace(/[^A-Za-z0-9/=]/g, '');
    const parts = text.slice(m.index, end).split(BREAK);
    const lines = parts.map((part, i) => {
      if (i % 2 === 1) return part; // a line break
      if (i === 0) return mark('private-key', key);
      const footerAt = part.indexOf('-----END ');
      const prefix = footerAt >= 0 ? part.slice(0, footerAt) : (/^[+ -]?[ \t]*/.exec(part)?.[0] ?? '');
      return part.length > prefix.length ? `${prefix}${REDACTED_LINE}` : part;
    });
    out += text.slice(pos, m.index) + lines.join('');
    pos = end;
  }
  return out + text.slice(pos);
}

/**
 * The one redaction function for everything agentguard writes or prints about a run. Known values
 * go first (canary tokens, configured literals), then private-key blocks, the run's own detectors,
 * the built-in key formats, and last the credential shapes, so a value gets the most specific name.
 */
export function createRedactor(opts: RedactorOptions = {}): Redactor {
  const secrets = [...(opts.secrets ?? [])]
    .filter((s) => s.value.length >= 6)
    .sort((a, b) => b.value.length - a.value.length);
  // A configured preset is the very regex object of a built-in format: like the built-ins it runs
  // only on text that passes TRIGGER, ahead of them (and instead of its twin) as configured.
  const builtIns = [...FORMATS, ...SHAPES];
  const builtInRegexes = new Set([...builtIns.map((p) => p.regex), PRESET_DETECTORS['private-key'].regex]);
  const patterns = opts.patterns ?? [];
  const ungated = patterns.filter((p) => !builtInRegexes.has(p.regex));
  const configuredBuiltIns = patterns.filter((p) => builtInRegexes.has(p.regex));
  const configured = new Set(configuredBuiltIns.map((p) => p.regex));
  const gated = [...configuredBuiltIns, ...builtIns.filter((p) => !configured.has(p.regex))];
  const seen = opts.seen;
  const mark = (name: string, value: string): string => {
    seen?.set(value, name);
    return redactionMarker(name, value);
  };

  const rewrite = opts.rewrite;
  const text = (input: string): string => {
    let out = rewrite ? rewrite(input) : input;
    for (const s of secrets) {
      if (out.includes(s.value)) out = out.split(s.value).join(redactionMarker(s.name, s.value, s.hashed));
    }
    const triggered = TRIGGER.test(out);
    if (triggered) out = redactKeyBlocks(out, mark);
    for (const pattern of ungated) out = replacePattern(out, pattern, mark);
    if (triggered) for (const pattern of gated) out = replacePattern(out, pattern, mark);
    return out;
  };

  const value = (input: unknown, key?: string): unknown => {
    if (typeof input === 'string') {
      if (key !== undefined && CRED_KEY.test(key) && !isReference(input) && !input.startsWith('[REDACTED'))
        return mark('credential-field', input.replace(/^(?:bearer|basic|token)\s+/i, ''));
      return text(input);
    }
    if (Array.isArray(input)) {
      // `--api-key VALUE` as two argv elements: the element after the option is the secret.
      return input.map((item, i) => {
        const prev = input[i - 1];
        if (typeof item === 'string' && typeof prev === 'string' && FLAG.test(prev) && !isReference(item)) {
          if (!item.startsWith('-')) return mark('cli-credential', item);
        }
        return value(item);
      });
    }
    if (input !== null && typeof input === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(input)) out[text(k)] = value(v, k);
      return out;
    }
    return input;
  };

  return { text, value: <T>(input: T) => value(input) as T };
}

/** Credential shapes and built-in key formats only: what every writer applies when it knows nothing of the run. */
export const baseRedactor: Redactor = createRedactor();
