import { createHash } from 'node:crypto';
import type { Rng } from './types.js';

/**
 * sfc32 seeded from the sha256 of the seed's decimal text: any integer (negative, past 2^32) gives
 * its own stream, and the same seed gives the same stream on every machine and Node version.
 */
export function seededRng(seed: bigint | number, stream = ''): Rng {
  const digest = createHash('sha256')
    .update(`${String(seed)}\u0000${stream}`)
    .digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12);
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // The first outputs of sfc32 still echo the seed words; throw them away.
  for (let i = 0; i < 12; i++) next();
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(items: readonly T[]) => items[int(0, items.length - 1)] as T,
    chars: (alphabet, length) => Array.from({ length }, () => alphabet[int(0, alphabet.length - 1)]).join(''),
  };
}
