import { describe, expect, it } from 'vitest';
import { esc, num, ratio, truncate } from './escape.js';

describe('esc', () => {
  it('makes markup, quotes and entities inert', () => {
    expect(esc('<script>alert("x")</script>')).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(esc(`a' onmouseover='x`)).toBe('a&#39; onmouseover=&#39;x');
    expect(esc('&amp; &lt;')).toBe('&amp;amp; &amp;lt;');
  });

  it('shows control and direction-changing characters instead of obeying them', () => {
    expect(esc('a\nb\tc\u0000')).toBe('a\\nb\\tc\\u0000');
    expect(esc('x\u202Egnp.exe')).toBe('x\\u202egnp.exe');
  });

  it('cuts long values by code points, never inside an entity', () => {
    const long = '<'.repeat(400);
    const out = esc(long);
    expect(out).toBe(`${'&lt;'.repeat(299)}…`);
    expect(esc('😀'.repeat(5), 3)).toBe('😀😀…');
  });
});

describe('truncate', () => {
  it('keeps the start or the end', () => {
    expect(truncate('abcdefgh', 5)).toBe('abcd…');
    expect(truncate('abcdefgh', 5, 'end')).toBe('…efgh');
    expect(truncate('abc', 5, 'end')).toBe('abc');
  });
});

describe('num and ratio', () => {
  it('format the same on every machine', () => {
    expect(num(1.2345)).toBe('1.2');
    expect(num(-0.01)).toBe('0');
    expect(num(100)).toBe('100');
    expect(ratio(null)).toBe('–');
    expect(ratio(0.456)).toBe('0.46');
  });
});
