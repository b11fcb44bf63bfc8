import { describe, expect, it } from 'vitest';
import { cookieValue, newToken, tokenCookieName, tokenMatches } from './token.js';

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

  it('reads its own cookie among others', () => {
    const name = tokenCookieName(8080);
    expect(cookieValue(`a=1; ${name}=tok; b=2`, name)).toBe('tok');
    expect(cookieValue(`${tokenCookieName(8081)}=other`, name)).toBeNull();
    expect(cookieValue(undefined, name)).toBeNull();
  });
});
