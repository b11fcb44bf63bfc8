import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../errors.js';

/** A --queue URL, checked: where Redis is, and how to show it without its secret. */
export type RedisTarget = {
  /** As given: handed to the Redis client, never printed. */
  url: string;
  /** The URL with any password (and user) replaced by `***`: the only form that is shown or written. */
  display: string;
  tls: boolean;
  /** From --queue-password-file or AGENTGUARD_QUEUE_PASSWORD, never from argv; handed to the client only. */
  password?: string;
};

/** The environment variable a queue password may come from (a systemd EnvironmentFile, a Secret). */
export const PASSWORD_ENV = 'AGENTGUARD_QUEUE_PASSWORD';
/** Longer than any real password; a bigger file is the wrong file. */
const MAX_PASSWORD_BYTES = 4096;

/**
 * Parse `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS, passed through to the
 * client). Any other scheme, a missing host, a db that is not a whole number or a password in the
 * URL (argv is public) is refused naming the flag; the error shows the redacted URL only. The
 * password comes separately (queuePassword).
 */
export function parseRedisUrl(flag: string, raw: string, password?: string): RedisTarget {
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
  if (u.password !== '')
    throw new ConfigError(
      `${flag} '${display}' carries a password, which every local user can read in /proc/PID/cmdline. ` +
        `Fix: drop it from the URL and give it in a file only you read (--queue-password-file FILE) or in ${PASSWORD_ENV}.`,
    );
  if (u.hostname === '') throw new ConfigError(`${flag} '${display}' names no host. Fix: redis://HOST:PORT.`);
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db))
    throw new ConfigError(
      `${flag} '${display}': database '${db}' is not a number. Fix: e.g. redis://HOST:6379/0.`,
    );
  return {
    url: raw,
    display,
    tls: u.protocol === 'rediss:',
    ...(password !== undefined ? { password } : {}),
  };
}

/**
 * The queue password: from `file` (--queue-password-file; readable by its owner only, one line), else
 * from PASSWORD_ENV, else none. A file others can read or that is not a small regular file is refused.
 */
export function queuePassword(file: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (file === undefined) {
    const v = env[PASSWORD_ENV];
    return v === undefined || v === '' ? undefined : v;
  }
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(file);
  } catch {
    throw new ConfigError(
      `--queue-password-file ${file} does not exist. Fix: write the Redis password there (chmod 600).`,
    );
  }
  if (!st.isFile() || st.size > MAX_PASSWORD_BYTES)
    throw new ConfigError(
      `--queue-password-file ${file} is not a small regular file. Fix: put only the password in it.`,
    );
  if ((st.mode & 0o077) !== 0)
    throw new ConfigError(
      `--queue-password-file ${file} is readable by others (mode ${(st.mode & 0o777).toString(8)}). Fix: chmod 600 ${file}.`,
    );
  const password = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  if (password === '')
    throw new ConfigError(`--queue-password-file ${file} is empty. Fix: put the Redis password in it.`);
  return password;
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
    for (const secret of [u.password, decodeURIComponent(u.password), target.password ?? ''])
      if (secret.length > 0) out = out.split(secret).join('***');
  } catch {
    // Not a URL: parseRedisUrl refused it before any client saw it.
  }
  return out;
}

/** --queue with its password from --queue-password-file or the environment: what every queue command connects with. */
export function queueTarget(
  raw: string,
  passwordFile: string | undefined,
  env: NodeJS.ProcessEnv,
): RedisTarget {
  return parseRedisUrl('--queue', raw, queuePassword(passwordFile, env));
}
