import { describe, expect, it } from 'vitest';
import { canonicalIp } from './allow-list.js';
import { embeddedV4, internalAllowed, isInternalAddress } from './internal-address.js';

const internal = (text: string) => isInternalAddress(canonicalIp(text) ?? text);

describe('isInternalAddress', () => {
  it('holds the host, its private networks and the metadata service, in every IPv6 form', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:0:10.0.0.1',
      '::127.0.0.1',
      '64:ff9b::7f00:1',
      '64:ff9b::169.254.169.254',
      '64:ff9b:1::1',
      '2002:7f00:1::1',
      '2002:a9fe:a9fe::',
      'fe80::1%eth0',
      '::ffff:127.0.0.1%lo',
    ])
      expect(internal(ip), ip).toBe(true);
  });

  it('leaves public addresses alone, the ones beside each range included', () => {
    for (const ip of [
      '8.8.8.8',
      '172.32.0.1',
      '172.15.255.255',
      '100.128.0.1',
      '169.255.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ])
      expect(internal(ip), ip).toBe(false);
  });

  it('reads the IPv4 address each IPv6 form carries', () => {
    expect(embeddedV4(canonicalIp('::ffff:10.0.0.1') ?? '')).toBe('10.0.0.1');
    expect(embeddedV4(canonicalIp('64:ff9b::a00:1') ?? '')).toBe('10.0.0.1');
    expect(embeddedV4(canonicalIp('2002:c0a8:101::') ?? '')).toBe('192.168.1.1');
    expect(embeddedV4('2606:4700::1111')).toBeUndefined();
  });
});

describe('internalAllowed', () => {
  it('lets through what the operator lists: the name, the address, a port of it, or a range', () => {
    expect(internalAllowed('mirror.corp.example', '10.0.0.5', 443, ['mirror.corp.example'])).toBe(true);
    expect(internalAllowed('mirror.corp.example', '10.0.0.5', 443, ['10.0.0.5:443'])).toBe(true);
    expect(internalAllowed('mirror.corp.example', '10.0.0.5', 80, ['10.0.0.5:443'])).toBe(false);
    expect(internalAllowed('x.example', '10.20.3.4', 80, ['10.20.0.0/16'])).toBe(true);
    expect(internalAllowed('x.example', '::ffff:10.20.3.4', 80, ['10.20.0.0/16'])).toBe(true);
    expect(internalAllowed('x.example', '10.21.0.1', 80, ['10.20.0.0/16'])).toBe(false);
    expect(internalAllowed('x.example', 'fd00::5', 80, ['fd00::/8'])).toBe(true);
    expect(internalAllowed('x.example', '10.0.0.5', 80, ['10.0.0.0/99', 'not an address/8'])).toBe(false);
    expect(internalAllowed('x.example', '169.254.169.254', 80, [])).toBe(false);
  });
});
