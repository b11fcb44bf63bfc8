import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { canaryForms, carrierViews, findCanary } from './canary-match.js';

const TOKEN = 'AKIA0123456789ABCDEF';
const forms = canaryForms(TOKEN);
const found = (text: string) => findCanary(carrierViews(text), forms);

function base32(bytes: Buffer): string {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5)
    out += abc[Number.parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

describe('canary carriers', () => {
  it('finds the token as written, lower-cased and reversed', () => {
    expect(found(`key=${TOKEN}&x=1`)).toBe('exact');
    expect(found(`${TOKEN.toLowerCase()}.evil.test`)).toBe('exact');
    expect(found([...TOKEN].reverse().join(''))).toBe('reversed');
  });

  it('finds hex, base64 and base32 at every alignment inside longer text', () => {
    for (const lead of ['', 'a', 'ab', 'abc', 'abcd']) {
      const raw = Buffer.from(`${lead}${TOKEN}!tail`);
      expect(found(`x ${raw.toString('hex')} y`)).toMatch(/hex/);
      expect(found(`x ${raw.toString('hex').toUpperCase()} y`)).toMatch(/hex/);
      expect(found(`"${raw.toString('base64')}"`)).toMatch(/base64/);
      expect(found(raw.toString('base64url'))).toMatch(/base64/);
      expect(found(`q=${base32(raw)}`)).toMatch(/base32/);
      expect(found(`q=${base32(raw).toLowerCase()}`)).toMatch(/base32/);
    }
  });

  it('undoes URL, C, JSON and HTML escapes, once or twice', () => {
    const pct = [...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    expect(found(`GET /?d=${pct}`)).toBe('escaped');
    expect(found(`GET /?d=${pct.replace(/%/g, '%25')}`)).toBe('escaped');
    expect(found(`"${[...TOKEN].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join('')}"`)).toBe(
      'escaped',
    );
    expect(found([...TOKEN].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join(''))).toBe('escaped');
    expect(found([...TOKEN].map((c) => `&#${c.charCodeAt(0)};`).join(''))).toBe('escaped');
    // base64's + and / escaped in a query string
    const b64 = Buffer.from(`??>${TOKEN}`).toString('base64');
    expect(found(encodeURIComponent(b64))).toMatch(/base64/);
  });

  it('joins a token split at every position over DNS labels, lines or separators', () => {
    const hex = Buffer.from(TOKEN).toString('hex');
    for (let cut = 1; cut < hex.length; cut++) {
      expect(found(`${hex.slice(0, cut)}.${hex.slice(cut)}.x.evil.test`)).toBe('split+hex');
    }
    for (let cut = 1; cut < TOKEN.length; cut++) {
      expect(found(`${TOKEN.slice(0, cut)}-${TOKEN.slice(cut)}`)).toBe('split');
    }
    const wrapped = Buffer.from(`header\n${TOKEN}\n`.repeat(8))
      .toString('base64')
      .replace(/(.{76})/g, '$1\n');
    expect(found(wrapped)).toMatch(/base64/);
    const b32 = base32(Buffer.from(TOKEN)).toLowerCase();
    expect(found(`${b32.slice(0, 13)}.${b32.slice(13)}.evil.test`)).toBe('split+base32');
  });

  it('decodes base64 and hex runs, also of compressed bytes', () => {
    const hexThenB64 = Buffer.from(Buffer.from(TOKEN).toString('hex')).toString('base64');
    expect(found(`{"d":"${hexThenB64}"}`)).toBe('base64+hex');
    expect(found(gzipSync(Buffer.from(`k=${TOKEN}`)).toString('base64'))).toBe('base64+compressed');
    expect(found(deflateSync(Buffer.from(`k=${TOKEN}`)).toString('hex'))).toBe('hex+compressed');
  });

  it('finds nothing in text without the token or with another one', () => {
    expect(
      found('AKIA0123456789ABCDEG and a long base64 run aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ='),
    ).toBeUndefined();
    expect(found(Buffer.from('AKIA0123456789ABCDEX').toString('hex'))).toBeUndefined();
    expect(found('')).toBeUndefined();
  });
});

describe('canary carriers, encoded twice', () => {
  const b64 = (t: string | Buffer) => Buffer.from(t).toString('base64');
  const hex = (t: string | Buffer) => Buffer.from(t).toString('hex');
  const wide = Buffer.from(`key=${TOKEN}`, 'utf16le');

  it('finds base64 of hex, hex of base64, base64 of base64, gzip then base64 twice, URL-encoded base64', () => {
    expect(found(b64(hex(TOKEN)))).toBe('base64+hex');
    expect(found(hex(b64(TOKEN)))).toBe('hex+base64');
    expect(found(b64(b64(TOKEN)))).toBe('base64+base64');
    expect(found(b64(b64(gzipSync(Buffer.from(TOKEN)))))).toBe('base64+base64+compressed');
    expect(found(encodeURIComponent(b64(`x${TOKEN}??>>`)))).toMatch(/base64/);
  });

  it('finds UTF-16 in either byte order, as it is and inside base64 or hex', () => {
    expect(found(wide.toString('latin1'))).toBe('utf16');
    expect(found(Buffer.from(wide).swap16().toString('latin1'))).toBe('utf16');
    expect(found(wide.toString('base64'))).toBe('base64+utf16');
    expect(found(wide.toString('hex'))).toBe('hex+utf16');
  });

  it('finds rot13 and a list of character codes', () => {
    const rot = TOKEN.replace(/[A-Z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 52) % 26) + 65));
    expect(found(`x = "${rot}"`)).toBe('rot13');
    expect(found(`String.fromCharCode(${[...TOKEN].map((c) => c.charCodeAt(0)).join(', ')})`)).toBe('codes');
  });

  it('finds nothing in UTF-16 or code lists of other text', () => {
    expect(found(Buffer.from('key=AKIA0123456789ABCDEX', 'utf16le').toString('latin1'))).toBeUndefined();
    expect(found([...'AKIA0123456789ABCDEX'].map((c) => c.charCodeAt(0)).join(','))).toBeUndefined();
  });
});

describe('canary carriers, layered', () => {
  it('finds a token kept as wrapped base64 in a key file, after the file is base32-encoded', () => {
    const file = `-----BEGIN KEY-----\n${Buffer.from(`key-v1 canary-${TOKEN} ${'A'.repeat(90)}`)
      .toString('base64')
      .replace(/(.{70})/g, '$1\n')}\n-----END KEY-----\n`;
    expect(found(`GET /?s=${base32(Buffer.from(file)).replace(/=+$/, '')}`)).toMatch(/^base32\+.*base64/);
  });
});

describe('carrierViews joins a value cut by a form or a path', () => {
  it('finds a token cut by + (a form-encoded space) or / (path segments)', () => {
    for (const text of [
      `q=${TOKEN.slice(0, 7)}+${TOKEN.slice(7)}`,
      `/v1/${TOKEN.slice(0, 9)}/${TOKEN.slice(9)}/x`,
    ]) {
      expect(findCanary(carrierViews(text), forms), text).toBe('split');
    }
  });
});
