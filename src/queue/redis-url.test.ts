import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { PASSWORD_ENV, parseRedisUrl, queuePassword, redactIn, redactRedisUrl } from './redis-url.js';

describe('parseRedisUrl', () => {
  it('refuses a password in the URL (argv is readable by every local user), without printing it', () => {
    for (const url of ['redis://:s3cret@db.example:6380/2', 'rediss://user:s3cret@cache.example:6379']) {
      expect(() => parseRedisUrl('--queue', url)).toThrow(/--queue-password-file/);
      expect(() => parseRedisUrl('--queue', url)).not.toThrow(/s3cret/);
    }
  });

  it('takes the password apart from the URL, and passes rediss:// through as TLS', () => {
    const t = parseRedisUrl('--queue', 'rediss://user@cache.example:6379', 's3cret');
    expect(t.tls).toBe(true);
    expect(t.password).toBe('s3cret');
    expect(t.display).toBe('rediss://***@cache.example:6379');
    expect(redactIn('auth s3cret failed', t)).toBe('auth *** failed');
  });

  it('refuses other schemes and bad databases without printing the password', () => {
    for (const bad of ['http://u:hunter2@h:1', 'redis://:hunter2@h:1/x', 'not a url hunter2@']) {
      let err: unknown;
      try {
        parseRedisUrl('--queue', bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect(String((err as Error).message)).not.toContain('hunter2');
    }
  });

  it("hides a URL's secret inside free text", () => {
    const t = { url: 'redis://:p%40ss@h:1', display: 'redis://***@h:1', tls: false };
    expect(redactIn('connect redis://:p%40ss@h:1 failed: bad password p@ss', t)).toBe(
      'connect redis://***@h:1 failed: bad password ***',
    );
    expect(redactRedisUrl('redis://h:1/0')).toBe('redis://h:1/0');
  });
});

describe('queuePassword', () => {
  it('reads a file only its owner can read, else the environment; refuses a file others can read', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-pw-'));
    try {
      const f = path.join(dir, 'pw');
      writeFileSync(f, 'hunter2\n', { mode: 0o600 });
      expect(queuePassword(f, {})).toBe('hunter2');
      expect(queuePassword(undefined, { [PASSWORD_ENV]: 'from-env' })).toBe('from-env');
      expect(queuePassword(undefined, {})).toBeUndefined();
      chmodSync(f, 0o644);
      expect(() => queuePassword(f, {})).toThrow(/readable by others.*chmod 600/);
      expect(() => queuePassword(path.join(dir, 'none'), {})).toThrow(ConfigError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
