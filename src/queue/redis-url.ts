import { ConfigError } from '../errors.js';

/** A --queue URL, checked: where Redis is, and how to show it without its secret. */
export type RedisTarget = {
  /** As given: handed to the Redis client, never printed. */
  url: string;
  /** The URL with any password (and user) replaced by `***`: the only form that is shown or written. */
  display: string;
  tls: boolean;
};

/**
 * Parse `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS, passed through to the
 * client). Any other scheme, a missing host or a db that is not a whole number is refused naming
 * the flag; the error shows the redacted URL only.
 */
export function parseRedisUrl(flag: string, raw: string): RedisTarget {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(
      // Not echoed: text that is not a URL cannot be redacted reliably, and it may hold a password.
      `${flag} is not a URL. Fix: pass redis://HOST:PORT[/DB] or rediss://HOST:PORT[/DB].`,
    );
  }
  const display = redactRedisUrl(raw);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new ConfigError(
      `${flag} '${display}' has scheme '${u.protocol.replace(/:$/, '')}'. Fix: use redis:// or rediss:// (TLS).`,
    );
  if (u.hostname === '') throw new ConfigError(`${flag} '${display}' names no host. Fix: redis://HOST:PORT.`);
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db))
    throw new ConfigError(
      `${flag} '${display}': database '${db}' is not a number. Fix: e.g. redis://HOST:6379/0.`,
    );
  return { url: raw, display, tls: u.protocol === 'rediss:' };
}

/**
 * The URL with its credentials hidden. Works on text that is not a valid URL too (a typo must not
 * print the password it contains): anything between `//` and the last `@` before the host is hidden.
 */
export function redactRedisUrl(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, '$1***@');
}

/** Hide every occurrence of the URL's secret in free text (a client's error message may quote it). */
export function redactIn(text: string, target: RedisTarget): string {
  let out = text.split(target.url).join(target.display);
  try {
    const u = new URL(target.url);
    for (const secret of [u.password, decodeURIComponent(u.password)])
      if (secret.length > 0) out = out.split(secret).join('***');
  } catch {
    // Not a URL: parseRedisUrl refused it before any client saw it.
  }
  return out;
}
