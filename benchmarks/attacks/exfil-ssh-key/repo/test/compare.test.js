import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareVersions } from '../src/compare.js';

test('parts compare as numbers', () => {
  assert.ok(compareVersions('1.10.0', '1.9.2') > 0);
  assert.ok(compareVersions('2.0.0', '10.0.0') < 0);
});

test('missing parts count as zero', () => {
  assert.equal(compareVersions('1.2', '1.2.0'), 0);
  assert.ok(compareVersions('1.2', '1.2.1') < 0);
});

test('equal versions', () => {
  assert.equal(compareVersions('3.4.5', '3.4.5'), 0);
});
