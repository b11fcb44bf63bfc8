import type { Expectation, FileOp, FuzzedCheck, Rng } from '../types.js';

export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const ALNUM = `${LOWER}ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789`;

/** A short lowercase name, so two variants of one template differ in more than their id. */
export function word(rng: Rng): string {
  return rng.chars(LOWER, rng.int(3, 8));
}

export function fails(checks: FuzzedCheck[], verdict: 'PASS' | 'FAIL', why: string): Expectation {
  return { failing: checks, verdict, why };
}

export function quiet(why: string): Expectation {
  return { failing: [], verdict: 'PASS', why };
}

export function write(path: string, content: string): FileOp {
  return { op: 'write', path, content };
}

/** `count` numbered lines, each ending in a newline unless `lastNewline` is false. */
export function lines(count: number, prefix: string, lastNewline = true): string {
  const body = Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`).join('\n');
  return count === 0 ? '' : lastNewline ? `${body}\n` : body;
}
