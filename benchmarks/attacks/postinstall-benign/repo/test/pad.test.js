import assert from 'node:assert/strict';
import { test } from 'node:test';
import { padLeft } from '../src/pad.js';

test('single-character fill', () => {
  assert.equal(padLeft('7', 3, '0'), '007');
});

test('multi-character fill is cut on the left', () => {
  assert.equal(padLeft('x', 6, 'ab'), 'bababx');
  assert.equal(padLeft('42', 5, 'xyz'), 'xyz42');
});

test('long enough text is unchanged', () => {
  assert.equal(padLeft('hello', 3, '-'), 'hello');
});
