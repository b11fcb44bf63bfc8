import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBytes } from '../src/bytes.js';

test('bytes stay bytes', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1023), '1023 B');
});

test('binary units, one decimal, no trailing .0', () => {
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(1048576), '1 MiB');
  assert.equal(formatBytes(5 * 1024 ** 4), '5 TiB');
});
