import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDuration } from '../src/duration.js';

test('single units', () => {
  assert.equal(parseDuration('90s'), 90);
  assert.equal(parseDuration('5m'), 300);
});

test('combined units', () => {
  assert.equal(parseDuration('1h30m'), 5400);
  assert.equal(parseDuration('2m5s'), 125);
});

test('bad input throws', () => {
  for (const bad of ['', '5', 'm5', '1s1h', '1m1m']) assert.throws(() => parseDuration(bad), RangeError);
});
