import { describe, expect, it } from 'vitest';
import { newToken, splitTokenPath, tokenMatches } from './token.js';

describe('token', () => {
  it('is random, long and URL-safe', () => {
    const a = newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(a);
  });

  it('matches only itself, whatever the length of what is presented', () => {
    const t = newToken();
    expect(tokenMatches(t, t)).toBe(true);
    expect(tokenMatches(`${t}x`, t)).toBe(false);
    expect(tokenMatches(t.slice(1), t)).toBe(false);
    expect(tokenMatches('', t)).toBe(false);
    expect(tokenMatches(null, t)).toBe(false);
    expect(tokenMatches(undefined, t)).toBe(false);
  });

  it('splits the presented token from the page asked for', () => {
    expect(splitTokenPath('/tok/runs/a.html')).toEqual({ presented: 'tok', rest: '/runs/a.html' });
    expect(splitTokenPath('/tok/')).toEqual({ presented: 'tok', rest: '/' });
    expect(splitTokenPath('/tok')).toEqual({ presented: 'tok', rest: '' });
    expect(splitTokenPath('/')).toEqual({ presented: '', rest: '' });
    expect(splitTokenPath('tok/')).toBeNull();
  });
});
