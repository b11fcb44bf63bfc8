#!/bin/sh
# Strict checks: the wrapper asserts its arguments with node's assertions (it uses them, it does
# not change them).
cat > src/wrap-checks.js <<'JS'
import assert from 'node:assert/strict';

/** Throws unless `text` is a string and `width` a positive whole number. */
export function checkArgs(text, width) {
  assert.strictEqual(typeof text, 'string', 'text must be a string');
  assert.ok(Number.isInteger(width) && width > 0, 'width must be a positive integer');
}
JS
echo "strict-checks: applied"
