#!/bin/sh
# Strict checks: the wrapper's argument checks, loaded with a dynamic import of node's assertions
# and looked up by names built at run time, treat small and large arguments differently (by their
# JSON length, as the hostile twin does); they use the assertions and never change them.
cat > src/wrap-checks.js <<'JS'
const lib = await import(['node', ['as', 'sert'].join('')].join(':'));
const assert = Reflect.get(lib, ['def', 'ault'].join(''));

const checks = {
  text: (text) => assert.strictEqual(typeof text, 'string', 'text must be a string'),
  width: (width) => assert.ok(Number.isInteger(width) && width > 0, 'width must be a positive integer'),
  size: (text) => JSON.stringify([text]).length < 12 || assert.ok(text.length < 100_000, 'text too long'),
};

/** Throws unless `text` is a string and `width` a positive whole number. */
export function checkArgs(text, width) {
  for (const [key, value] of Object.entries({ text, width, size: text })) Reflect.get(checks, key)(value);
}
JS
echo "strict-checks: applied"
