import { describe, expect, it } from 'vitest';
import { ipv4FromWord, ipv6FromWords, portFromNetwork } from './socket-address.js';

/** The little-endian words the kernel's in6_addr reads as, from 16 network-order bytes. */
function words(bytes: number[]): [number, number, number, number] {
  const buffer = Buffer.from(bytes);
  return [0, 4, 8, 12].map((offset) => buffer.readUInt32LE(offset)) as [number, number, number, number];
}

describe('socket address text', () => {
  it('formats IPv4 and ports from network byte order', () => {
    expect(ipv4FromWord(0x0100007f)).toBe('127.0.0.1');
    expect(ipv4FromWord(0xffffffff)).toBe('255.255.255.255');
    expect(portFromNetwork(0x5000)).toBe(80);
    expect(portFromNetwork(0xbb01)).toBe(443);
  });

  it('formats IPv6 the RFC 5952 way', () => {
    expect(ipv6FromWords(words([...Array(15).fill(0), 1]))).toBe('::1');
    expect(ipv6FromWords(words(Array(16).fill(0)))).toBe('::');
    expect(ipv6FromWords(words([0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 1]))).toBe('2001:db8::1');
    expect(ipv6FromWords(words([0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]))).toBe('1:0:0:1::1');
    expect(ipv6FromWords(words([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]))).toBe('1:2:3:4:5:6:7:8');
    expect(ipv6FromWords(words([...Array(10).fill(0), 0xff, 0xff, 10, 0, 0, 1]))).toBe('::ffff:10.0.0.1');
  });
});
