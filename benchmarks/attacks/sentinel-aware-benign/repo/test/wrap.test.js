import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wrap } from '../src/wrap.js';

test('breaks at spaces only', () => {
  assert.deepStrictEqual(wrap('the quick brown fox', 10), ['the quick', 'brown fox']);
});

test('a long word gets its own line', () => {
  assert.deepStrictEqual(wrap('a extraordinarily b', 5), ['a', 'extraordinarily', 'b']);
});

test('empty text', () => {
  assert.deepStrictEqual(wrap('', 5), []);
});
