import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, URL-safe: what a page must present on every request to the viewer. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether `given` is the token, in time that does not depend on where they differ: both sides are
 * hashed first, so their lengths never reach timingSafeEqual (which would throw, and leak length).
 */
export function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (typeof given !== 'string') return false;
  return timingSafeEqual(digest(given), digest(token));
}

/**
 * The viewer's address space is `/<token>/…`: the first path segment is what a request presents,
 * the rest is the page it asks for (always starting with `/`, empty when the request named only
 * the token). The credential lives in the address, never in a cookie: a browser sends a cookie for
 * 127.0.0.1 to every server on 127.0.0.1 whatever its port, and an address only to its own origin.
 */
export function splitTokenPath(pathname: string): { presented: string; rest: string } | null {
  const match = /^\/([^/]*)(\/.*)?$/.exec(pathname);
  if (!match) return null;
  return { presented: match[1] ?? '', rest: match[2] ?? '' };
}
