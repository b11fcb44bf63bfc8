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

/** The viewer's cookie, per port: two viewers on one machine must not overwrite each other's. */
export function tokenCookieName(port: number): string {
  return `agentguard_view_${port}`;
}

/** The value of cookie `name` in a Cookie header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
