import { describe, expect, it } from 'vitest';
import { code, formatDuration, md, shellJoin, table } from './markdown-text.js';

describe('md', () => {
  it('escapes characters that open markdown syntax', () => {
    expect(md('a|b`c*d_e[f](g)<h>&i~j$k!l\\m')).toBe(
      'a\\|b\\`c\\*d\\_e\\[f\\]\\(g\\)\\<h\\>\\&i\\~j\\$k\\!l\\\\m',
    );
  });

  it('shows line breaks and other controls as visible escapes', () => {
    expect(md('one\ntwo\r\tthree\u0007\u2028')).toBe('one\\\\ntwo\\\\r\\\\tthree\\\\u0007\\\\u2028');
    expect(md('a\nb')).not.toMatch(/\n/);
  });

  it('cuts long values', () => {
    expect(md('x'.repeat(10), 4)).toBe('xxxx…');
    expect(md('xxxx', 4)).toBe('xxxx');
  });
});

describe('code', () => {
  it('cannot be broken out of', () => {
    expect(code('ab`c|d\ne')).toBe('`ab?c?d?e`');
  });
});

describe('table', () => {
  it('renders a header, a rule and rows, filling empty cells', () => {
    expect(table(['A', 'B'], [['1', '']])).toEqual(['| A | B |', '| --- | --- |', '| 1 |   |']);
  });
});

describe('formatDuration', () => {
  it.each([
    [350, '350 ms'],
    [1250, '1.3 s'],
    [125_000, '2 min 5 s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('shellJoin', () => {
  it('quotes arguments a shell would split or interpret', () => {
    expect(shellJoin(['sh', '-c', 'a | b', "it's", '', '--x=1'])).toBe(`sh -c 'a | b' 'it'\\''s' '' --x=1`);
  });
});
