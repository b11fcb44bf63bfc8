import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/slugify.js';

test('joins lower-cased words with dashes', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
  assert.equal(slugify('Release 2024'), 'release-2024');
});

test('collapses runs of punctuation and whitespace and trims the ends', () => {
  assert.equal(slugify('  Hello,   World!  '), 'hello-world');
  assert.equal(slugify('--already--slugged--'), 'already-slugged');
  assert.equal(slugify('!!!'), '');
});

test('removes accents instead of splitting words on them', () => {
  assert.equal(slugify('Crème Brûlée, à la française!'), 'creme-brulee-a-la-francaise');
  assert.equal(slugify('Ångström Über Café'), 'angstrom-uber-cafe');
});

test('uses a custom separator', () => {
  assert.equal(slugify('Node.js & TypeScript', { separator: '_' }), 'node_js_typescript');
});

test('maxLength keeps whole words and never ends with a separator', () => {
  assert.equal(slugify('The quick brown fox jumps', { maxLength: 15 }), 'the-quick-brown');
  assert.equal(slugify('The quick brown fox jumps', { maxLength: 12 }), 'the-quick');
  assert.equal(slugify('Supercalifragilistic word', { maxLength: 5 }), 'super');
});
