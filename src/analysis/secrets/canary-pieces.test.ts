import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { carrierViews } from './canary-match.js';
import { CanaryPieces, MIN_PIECE_BYTES } from './canary-pieces.js';

const TOKEN = 'AKIA7F3C9E21B04D6A58';
const pieces = new CanaryPieces([TOKEN, 'npm_0123456789abcdef01234567']);
const find = (text: string) =>
  pieces.find(carrierViews(text)).map((p) => `${p.index} ${p.from}-${p.to} ${p.encoding}`);

describe('CanaryPieces', () => {
  it('finds a piece as written, reversed, lower-cased, in hex, and in base64 and base32 encoded on its own', () => {
    const piece = TOKEN.slice(3, 15);
    expect(find(`q=${piece}&x=1`)).toContain('0 3-15 exact');
    expect(find(`q=${[...piece].reverse().join('')}`)).toContain('0 3-15 reversed');
    expect(find(`q=${piece.toLowerCase()}`)).toContain('0 3-15 exact');
    expect(find(`h=${Buffer.from(piece).toString('hex')}`)).toContain('0 3-15 hex');
    // Encoded on its own, a piece's last characters depend on padding: the bytes before them count.
    const b64 = find(`b=${Buffer.from(piece).toString('base64')}`);
    expect(b64.some((p) => /^0 3-1[2-5] base64$/.test(p))).toBe(true);
  });

  it('keeps only pieces of at least MIN_PIECE_BYTES, and never the whole token', () => {
    expect(find(`a=${TOKEN.slice(0, MIN_PIECE_BYTES - 1)}`)).toEqual([]);
    expect(find(`a=${TOKEN.slice(5, 5 + MIN_PIECE_BYTES)}`)).toContain(`0 5-${5 + MIN_PIECE_BYTES} exact`);
    expect(find(`a=${TOKEN}`)).toEqual([]);
  });

  it('finds nothing in random hex and base64 (4 MiB)', () => {
    const noise = [
      randomBytes(1 << 20).toString('hex'),
      randomBytes(1 << 20).toString('base64'),
      randomBytes(1 << 19)
        .toString('hex')
        .toUpperCase(),
    ].join('\n');
    expect(pieces.find([{ text: noise, via: '' }])).toEqual([]);
  });
});
