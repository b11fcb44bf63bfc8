import { describe, expect, it } from 'vitest';
import { matchAllow, normalizeHost, parseAllowEntry, parseAllowList } from './allow-list.js';

const allowed = (host: string, port: number, allow: string[]) => matchAllow(host, port, allow).allowed;

describe('matchAllow', () => {
  it('matches an exact name on any port when the entry has none', () => {
    expect(allowed('example.com', 80, ['example.com'])).toBe(true);
    expect(allowed('example.com', 8443, ['example.com'])).toBe(true);
    expect(allowed('www.example.com', 443, ['example.com'])).toBe(false);
  });

  it('is case-insensitive and ignores one trailing dot on either side', () => {
    expect(allowed('EXAMPLE.com', 443, ['example.COM'])).toBe(true);
    expect(allowed('example.com.', 443, ['example.com'])).toBe(true);
    expect(allowed('example.com', 443, ['example.com.'])).toBe(true);
    expect(allowed('example.com..', 443, ['example.com'])).toBe(false);
  });

  it('lets *.name match subdomains at any depth but not the apex', () => {
    const list = ['*.example.com'];
    expect(allowed('a.example.com', 443, list)).toBe(true);
    expect(allowed('a.b.example.com', 443, list)).toBe(true);
    expect(allowed('example.com', 443, list)).toBe(false);
    expect(allowed('example.com', 443, [...list, 'example.com'])).toBe(true);
  });

  it('never matches a partial suffix', () => {
    expect(allowed('evilexample.com', 443, ['*.example.com'])).toBe(false);
    expect(allowed('evilexample.com', 443, ['example.com'])).toBe(false);
    expect(allowed('example.com.evil.test', 443, ['example.com', '*.example.com'])).toBe(false);
    expect(allowed('xexample.com', 443, ['*.example.com'])).toBe(false);
  });

  it('enforces ports and explains a port mismatch', () => {
    expect(allowed('example.com', 8443, ['example.com:8443'])).toBe(true);
    expect(matchAllow('example.com', 443, ['example.com:8443'])).toEqual({
      allowed: false,
      reason: "port 443 not allowed (allow list has 'example.com:8443')",
    });
    expect(allowed('registry.npmjs.org', 443, ['*.npmjs.org:443'])).toBe(true);
    expect(allowed('registry.npmjs.org', 80, ['*.npmjs.org:443'])).toBe(false);
  });

  it('names the entry that allowed a request', () => {
    expect(matchAllow('a.example.com', 443, ['other.test', '*.example.com'])).toEqual({
      allowed: true,
      reason: "allow list entry '*.example.com'",
    });
    expect(matchAllow('a.test', 80, [])).toEqual({ allowed: false, reason: 'not in allow list' });
  });

  it('matches IP addresses exactly and canonicalises IPv6', () => {
    expect(allowed('10.0.0.5', 80, ['10.0.0.5'])).toBe(true);
    expect(allowed('10.0.0.50', 80, ['10.0.0.5'])).toBe(false);
    expect(allowed('::1', 80, ['[0:0:0:0:0:0:0:1]'])).toBe(true);
    expect(allowed('[::1]', 8080, ['[::1]:8080'])).toBe(true);
    expect(allowed('::1', 8081, ['[::1]:8080'])).toBe(false);
    expect(allowed('2001:db8::1', 443, ['2001:DB8:0::1'])).toBe(true);
  });

  it('does not let a name entry match an IP or a wildcard match an IP', () => {
    expect(allowed('10.0.0.5', 80, ['*.0.0.5'])).toBe(false);
    expect(allowed('127.0.0.1', 80, ['localhost'])).toBe(false);
  });

  it('leaves IDN and punycode as they are', () => {
    expect(allowed('xn--bcher-kva.example', 443, ['xn--bcher-kva.example'])).toBe(true);
    expect(allowed('bücher.example', 443, ['xn--bcher-kva.example'])).toBe(false);
    expect(allowed('xn--bcher-kva.example', 443, ['bücher.example'])).toBe(false);
    expect(allowed('BÜCHER.example', 443, ['bücher.example'])).toBe(true);
  });

  it('treats * as any host, optionally on one port', () => {
    expect(allowed('anything.test', 1, ['*'])).toBe(true);
    expect(allowed('anything.test', 443, ['*:443'])).toBe(true);
    expect(allowed('anything.test', 80, ['*:443'])).toBe(false);
  });

  it('denies an empty host and skips invalid entries', () => {
    expect(matchAllow('', 80, ['*'])).toEqual({ allowed: false, reason: 'empty host' });
    expect(allowed('example.com', 80, ['https://example.com', 'example.com:99999'])).toBe(false);
  });
});

describe('parseAllowEntry', () => {
  it('parses the documented forms', () => {
    expect(parseAllowEntry('*.npmjs.org:443')).toEqual({
      ok: true,
      entry: { text: '*.npmjs.org:443', kind: 'subdomains', host: 'npmjs.org', port: 443 },
    });
    expect(parseAllowEntry('10.0.0.5')).toEqual({
      ok: true,
      entry: { text: '10.0.0.5', kind: 'ip', host: '10.0.0.5' },
    });
    expect(parseAllowEntry('::1')).toMatchObject({ ok: true, entry: { kind: 'ip', host: '::1' } });
  });

  it('rejects what is not host[:port], with the entry named', () => {
    for (const bad of [
      '',
      'https://example.com',
      'example.com/path',
      'a.*.example.com',
      '*example.com',
      'example.com:0',
      'example.com:x',
      '*.10.0.0.5',
      '[::1',
      '*.',
    ]) {
      const result = parseAllowEntry(bad);
      expect(result.ok, bad).toBe(false);
    }
    expect(parseAllowList(['ok.test', 'bad:port']).issues).toEqual([
      "'bad:port' has an invalid port (1-65535)",
    ]);
  });
});

describe('normalizeHost', () => {
  it('lower-cases, drops a trailing dot, strips IPv6 brackets', () => {
    expect(normalizeHost('Api.Example.COM.')).toBe('api.example.com');
    expect(normalizeHost('[::FFFF:127.0.0.1]')).toBe('::ffff:7f00:1');
  });
});
