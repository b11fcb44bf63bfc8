import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from '../src/stats.js';

test('odd and even lengths', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('input is left alone', () => {
  const values = [3, 1, 2];
  median(values);
  assert.deepEqual(values, [3, 1, 2]);
});

test('empty list throws', () => {
  assert.throws(() => median([]), RangeError);
});
