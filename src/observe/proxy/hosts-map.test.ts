import { describe, expect, it } from 'vitest';
import { hostsHasName, lookupHosts, parseHostsMap } from './hosts-map.js';

describe('hosts map', () => {
  const { map, issues } = parseHostsMap({
    'API.Allowed.test.': '127.0.0.1:8081',
    'api.allowed.test:443': '127.0.0.1:8443',
    'v6.test': '[::1]:9000',
    'same-port.test': '127.0.0.1',
  });

  it('redirects a name case-insensitively; a name:port key wins for its port', () => {
    expect(issues).toEqual([]);
    expect(lookupHosts(map, 'api.allowed.test', 80)).toEqual({ address: '127.0.0.1', port: 8081 });
    expect(lookupHosts(map, 'api.ALLOWED.test', 443)).toEqual({ address: '127.0.0.1', port: 8443 });
    expect(lookupHosts(map, 'v6.test', 1)).toEqual({ address: '::1', port: 9000 });
    expect(lookupHosts(map, 'same-port.test', 8080)).toEqual({ address: '127.0.0.1', port: 8080 });
    expect(lookupHosts(map, 'other.test', 80)).toBeUndefined();
    expect(lookupHosts(map, 'sub.api.allowed.test', 80)).toBeUndefined();
  });

  it('knows which names it redirects on some port', () => {
    const portOnly = parseHostsMap({ 'tls.test:443': '127.0.0.1:1' }).map;
    expect(hostsHasName(portOnly, 'TLS.test')).toBe(true);
    expect(hostsHasName(portOnly, 'tls.tes')).toBe(false);
  });

  it('names bad keys and values', () => {
    expect(
      parseHostsMap({ 'a.test': 'localhost:80', 'b.test': '127.0.0.1:70000', 'c.test:x': '127.0.0.1:1' })
        .issues,
    ).toEqual([
      "hosts['a.test'] = 'localhost:80' is not IP:PORT or [IPv6]:PORT",
      "hosts['b.test'] = '127.0.0.1:70000' is not IP:PORT or [IPv6]:PORT",
      "hosts key 'c.test:x' is not host[:port]",
    ]);
  });
});
