import { describe, expect, it } from 'vitest';
import { BoundedBuffer } from './run-command.js';

const feed = (limit: number, chunks: string[]) => {
  const b = new BoundedBuffer(limit);
  for (const c of chunks) b.push(Buffer.from(c));
  return b;
};

describe('BoundedBuffer', () => {
  it('keeps everything within the limit, whatever the chunking', () => {
    const b = feed(100, ['abc', 'def', '\nghi']);
    expect(b.text()).toBe('abcdef\nghi');
    expect(b.truncated).toBe(false);
    expect(b.total).toBe(10);
  });

  it('keeps the head and the last quarter, and says how much was left out between', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')}\n`);
    const b = feed(400, lines);
    const text = b.text();
    expect(b.truncated).toBe(true);
    expect(text.startsWith('line 000\n')).toBe(true);
    // The last line (the summary a failing program prints) survives.
    expect(text.endsWith('line 099\n')).toBe(true);
    const cut = Number(/\[agentguard: (\d+) bytes left out here\]/.exec(text)?.[1]);
    expect(text.length).toBeLessThanOrEqual(400);
    expect(cut).toBe(900 - text.indexOf('\n[agentguard') - 100);
  });

  it('keeps the last quarter when it arrives as one large chunk', () => {
    const b = feed(400, [`${'x'.repeat(10_000)}END`]);
    expect(b.text().endsWith('END')).toBe(true);
    expect(b.text().startsWith('x'.repeat(200))).toBe(true);
  });
});
