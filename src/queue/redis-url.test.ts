import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { parseRedisUrl, redactIn, redactRedisUrl } from './redis-url.js';

describe('parseRedisUrl', () => {
  it('keeps the URL for the client and shows it without its password', () => {
    const t = parseRedisUrl('--queue', 'redis://:s3cret@db.example:6380/2');
    expect(t.url).toBe('redis://:s3cret@db.example:6380/2');
    expect(t.display).toBe('redis://***@db.example:6380/2');
    expect(t.tls).toBe(false);
  });

  it('passes rediss:// through as TLS', () => {
    const t = parseRedisUrl('--queue', 'rediss://user:pw@cache.example:6379');
    expect(t.tls).toBe(true);
    expect(t.display).toBe('rediss://***@cache.example:6379');
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

  it('hides the secret inside free text', () => {
    const t = parseRedisUrl('--queue', 'redis://:p%40ss@h:1');
    expect(redactIn('connect redis://:p%40ss@h:1 failed: bad password p@ss', t)).toBe(
      'connect redis://***@h:1 failed: bad password ***',
    );
    expect(redactRedisUrl('redis://h:1/0')).toBe('redis://h:1/0');
  });
});
