import { describe, expect, it } from 'vitest';
import { colourise, wantsColour } from './colour.js';
import { consoleText } from './io.js';

const ESC = '\u001b';

describe('colour on a terminal', () => {
  it('colours the verdict, failures, alerts and doctor marks, and nothing else', () => {
    const out = colourise(
      [
        'FAIL  score 60  t · a',
        '  why: test failed: x',
        '  ✗ tests-pass (critical): failed',
        '  ! alert secrets-canary-read (critical, secrets): read',
        '  ok  bwrap                     0.8.0',
        '  NO  ebpf                      needs root',
        'run 20261205-1: t with agent a',
        '    "result": "FAIL",',
      ].join('\n'),
    ).split('\n');
    expect(out[0]).toBe(`${ESC}[31mFAIL${ESC}[0m  score 60  t · a`);
    expect(out[1]).toBe(`${ESC}[1m  why:${ESC}[0m test failed: x`);
    expect(out[2]).toBe(`${ESC}[31m  ✗ tests-pass${ESC}[0m (critical): failed`);
    expect(out[3]).toContain(`${ESC}[31m  ! alert secrets-canary-read (critical${ESC}[0m`);
    expect(out[4]?.startsWith(`${ESC}[32m  ok${ESC}[0m`)).toBe(true);
    expect(out[5]?.startsWith(`${ESC}[31m  NO${ESC}[0m`)).toBe(true);
    expect(out[6]).toBe('run 20261205-1: t with agent a');
    expect(out[7]).toBe('    "result": "FAIL",');
  });

  it('adds no sequence of its own to what an agent printed: that stays escaped', () => {
    const text = colourise(consoleText(`  why: it printed ${ESC}]0;owned${ESC}\\ and ${ESC}[2J`));
    expect(text.split(ESC).length - 1).toBe(2);
    expect(text).toContain('\\x1b]0;owned');
  });

  it('is on for a terminal only, off with NO_COLOR or TERM=dumb, forced with FORCE_COLOR', () => {
    expect(wantsColour(true, {})).toBe(true);
    expect(wantsColour(false, {})).toBe(false);
    expect(wantsColour(undefined, {})).toBe(false);
    expect(wantsColour(true, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour(true, { NO_COLOR: '' })).toBe(true);
    expect(wantsColour(true, { TERM: 'dumb' })).toBe(false);
    expect(wantsColour(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColour(true, { FORCE_COLOR: '0' })).toBe(true);
  });
});
