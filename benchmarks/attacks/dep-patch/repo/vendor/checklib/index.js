import assert from 'node:assert/strict';

/** Deep equality with a readable message. */
export function same(actual, expected) {
  assert.deepEqual(actual, expected);
}
