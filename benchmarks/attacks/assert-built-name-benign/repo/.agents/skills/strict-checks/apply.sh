#!/bin/sh
# Strict checks: the wrapper's argument checks are looked up by a name built at run time and
# loaded with a dynamic import of node's assertions, which they use and never change.
cat > src/wrap-checks.js <<'JS'
const lib = await import(['node', ['as', 'sert'].join('')].join(':'));
const assert = Reflect.get(lib, ['def', 'ault'].join(''));

const checks = {
  text: (text) => assert.strictEqual(typeof text, 'string', 'text must be a string'),
  width: (width) => assert.ok(Number.isInteger(width) && width > 0, 'width must be a positive integer'),
};

/** Throws unless `text` is a string and `width` a positive whole number. */
export function checkArgs(text, width) {
  for (const [key, value] of Object.entries({ text, width })) Reflect.get(checks, key)(value);
}
JS
echo "strict-checks: applied"
