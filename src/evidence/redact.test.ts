import { describe, expect, it } from 'vitest';
import { addedLines } from '../analysis/secrets/added-lines.js';
import { patchSection } from '../analysis/test-bundle.js';
import { baseRedactor, createRedactor, markersIn, REDACTED_LINE, redactionMarker } from './redact.js';
import { fingerprint } from './secret-formats.js';

// Assembled at run time so no complete credential-looking string sits in the source.
const OPENAI = `${'sk'}-proj-${'Ab3De6Gh9J'.repeat(3)}`;
const ANTHROPIC = `${'sk'}-ant-api03-${'Zx8Cv7Bn6M'.repeat(3)}`;
const AWS = `${'AKIA'}Q3EGRV7XK2LMN4PZ`;
const GITHUB = `${'ghp'}_${'a1B2c3D4e5'.repeat(4)}`;
const SLACK = `${'xoxb'}-123456789012-abcdefABCDEF`;
const TOKEN = 'q8Rt2Lp9Xv4Mz7Kc3NwY';
const KEY_BODY = ['b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ', 'AAAAAAABAAAAMwAAAAtzc2gtZW'];
const PRIVATE_KEY = [
  `-----BEGIN OPENSSH ${'PRIVATE'} KEY-----`,
  ...KEY_BODY,
  `-----END OPENSSH ${'PRIVATE'} KEY-----`,
].join('\n');

const text = (s: string) => baseRedactor.text(s);
const mark = (name: string, value: string) => redactionMarker(name, value);

describe('redactionMarker', () => {
  it('names the detector and fingerprints the value, but not a value short enough to guess', () => {
    expect(mark('openai-key', OPENAI)).toBe(`[REDACTED:openai-key:${fingerprint(OPENAI)}]`);
    expect(mark('cli-credential', 'hunter2')).toBe('[REDACTED:cli-credential]');
    expect(redactionMarker('my detector!', TOKEN, false)).toBe('[REDACTED:my-detector-]');
    expect(markersIn(`a ${mark('aws-access-key', AWS)} b [REDACTED:x]`)).toEqual([
      { detector: 'aws-access-key', fingerprint: fingerprint(AWS) },
      { detector: 'x' },
    ]);
  });
});

describe('baseRedactor', () => {
  it.each([
    ['openai-key', OPENAI],
    ['anthropic-key', ANTHROPIC],
    ['aws-access-key', AWS],
    ['github-token', GITHUB],
    ['slack-token', SLACK],
  ])('replaces a %s wherever it sits', (name, secret) => {
    expect(text(`x = "${secret}"; y`)).toBe(`x = "${mark(name, secret)}"; y`);
  });

  it.each([
    ['--api-key=V', 'cli-credential'],
    ['--api_key=V', 'cli-credential'],
    ['--token V', 'cli-credential'],
    ['--password V', 'cli-credential'],
    ['-H "Authorization: Bearer V"', 'http-auth'],
    ['{"authorization": "Basic V"}', 'http-auth'],
    ['X-Api-Key: V', 'http-auth'],
    ['bearer V', 'bearer-token'],
    ['postgres://admin:V@db.internal:5432/prod', 'url-password'],
    ['API_TOKEN=V', 'env-credential'],
    ['aws_secret_access_key = V', 'env-credential'],
  ])('replaces the credential in %s', (shape, name) => {
    expect(text(shape.replace('V', TOKEN))).toBe(shape.replace('V', mark(name, TOKEN)));
  });

  it('leaves references and look-alikes alone', () => {
    for (const s of [
      '--token $GITHUB_TOKEN',
      '--token-file /run/secrets/t',
      'API_KEY = process.env.API_KEY',
      'api_key = "your-api-key-goes-here"',
      'https://example.com/a:b@c',
      'a bearer of news',
      'sk-short',
    ])
      expect(text(s)).toBe(s);
  });

  it('is idempotent: a redacted text stays as it is', () => {
    const once = text(`--api-key=${OPENAI} --token ${TOKEN} Authorization: Bearer ${TOKEN}\n${PRIVATE_KEY}`);
    expect(text(once)).toBe(once);
  });

  it('replaces a private-key block line by line and fingerprints the key, raw or escaped alike', () => {
    const keyPrint = fingerprint(KEY_BODY.join(''));
    const expected = [mark('private-key', KEY_BODY.join('')), REDACTED_LINE, REDACTED_LINE, REDACTED_LINE];
    expect(text(PRIVATE_KEY)).toBe(expected.join('\n'));
    expect(text(JSON.stringify({ k: PRIVATE_KEY }))).toBe(JSON.stringify({ k: expected.join('\n') }));
    expect(text(PRIVATE_KEY)).toContain(keyPrint);
  });

  it('keeps a patch parseable: the same lines, the same hunk, the marker on the header line', () => {
    const patch = patchSection(
      '.env',
      [{ start: 1, lines: [`+ID=${AWS}`, ...PRIVATE_KEY.split('\n').map((l) => `+${l}`)] }],
      'added',
    );
    const redacted = text(patch);
    expect(redacted.split('\n')).toHaveLength(patch.split('\n').length);
    const lines = addedLines(redacted).added.map((l) => l.text);
    expect(lines).toEqual([
      `ID=${mark('aws-access-key', AWS)}`,
      mark('private-key', KEY_BODY.join('')),
      REDACTED_LINE,
      REDACTED_LINE,
      REDACTED_LINE,
    ]);
  });
});

describe('createRedactor', () => {
  it('replaces known values first, under their own name, hashed only when allowed', () => {
    const r = createRedactor({
      secrets: [
        { name: 'canary-npm-token', value: 'npm_0123456789abcdef', hashed: true },
        { name: 'internal', value: 'do-not-ship-42', hashed: false },
      ],
    });
    expect(r.text('a npm_0123456789abcdef b do-not-ship-42')).toBe(
      `a ${mark('canary-npm-token', 'npm_0123456789abcdef')} b [REDACTED:internal]`,
    );
  });

  it('tries run patterns before the built-in ones, so the check finds its own detector', () => {
    const r = createRedactor({ patterns: [{ name: 'my-aws', regex: /AKIA[0-9A-Z]{16}/g }] });
    expect(r.text(AWS)).toBe(mark('my-aws', AWS));
  });

  it('redacts values deeply, argv pairs and credential-named fields included, and records what it replaced', () => {
    const seen = new Map<string, string>();
    const r = createRedactor({ seen });
    const value = {
      argv: ['agent', '--api-key', TOKEN, '--token', '$T', '-v'],
      headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/plain' },
      n: 3,
      nested: [{ url: `https://u:${TOKEN}@h/x` }],
    };
    expect(r.value(value)).toEqual({
      argv: ['agent', '--api-key', mark('cli-credential', TOKEN), '--token', '$T', '-v'],
      headers: { authorization: mark('credential-field', TOKEN), accept: 'text/plain' },
      n: 3,
      nested: [{ url: `https://u:${mark('url-password', TOKEN)}@h/x` }],
    });
    expect(value.argv[2]).toBe(TOKEN);
    expect([...seen.keys()]).toEqual([TOKEN]);
  });
});
