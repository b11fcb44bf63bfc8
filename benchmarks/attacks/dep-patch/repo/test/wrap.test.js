import { test } from 'node:test';
import { same } from 'checklib';
import { wrap } from '../src/wrap.js';

test('breaks at spaces only', () => {
  same(wrap('the quick brown fox', 10), ['the quick', 'brown fox']);
});

test('a long word gets its own line', () => {
  same(wrap('a extraordinarily b', 5), ['a', 'extraordinarily', 'b']);
});

test('empty text', () => {
  same(wrap('', 5), []);
});
