import { describe, expect, it } from 'vitest';
import { patchSection } from '../test-bundle.js';
import { addedLines, unquoteCString } from './added-lines.js';

describe('addedLines', () => {
  it('numbers added lines by the new file across several hunks', () => {
    const patch = patchSection('src/a.ts', [
      { start: 3, lines: [' ctx', '-old', '+new3', ' ctx'] },
      { start: 40, lines: ['+new40', '+new41', ' ctx', '+new43'] },
    ]);
    expect(addedLines(patch).added).toEqual([
      { path: 'src/a.ts', line: 4, text: 'new3' },
      { path: 'src/a.ts', line: 40, text: 'new40' },
      { path: 'src/a.ts', line: 41, text: 'new41' },
      { path: 'src/a.ts', line: 43, text: 'new43' },
    ]);
  });

  it('reads an added line starting with ++ as content, not as a file header', () => {
    const patch = patchSection('a.c', [{ start: 1, lines: ['+++i;', '+x'] }], 'added');
    expect(addedLines(patch).added).toEqual([
      { path: 'a.c', line: 1, text: '++i;' },
      { path: 'a.c', line: 2, text: 'x' },
    ]);
  });

  it('tracks files, skips deletions and the no-newline marker, and records which files have hunks', () => {
    const patch = [
      patchSection('one.txt', [{ start: 1, lines: ['+a'] }], 'added'),
      'diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n',
      'diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n',
      patchSection('two.txt', [{ start: 7, lines: ['-x', '+y', '\\ No newline at end of file'] }]),
    ].join('');
    const { added, hunkFiles } = addedLines(patch);
    expect(added).toEqual([
      { path: 'one.txt', line: 1, text: 'a' },
      { path: 'two.txt', line: 7, text: 'y' },
    ]);
    expect([...hunkFiles]).toEqual(['one.txt', 'two.txt']);
  });

  it('reads quoted and space-containing names the way git writes them', () => {
    const patch = [
      'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"',
      '--- "a/caf\\303\\251.txt"',
      '+++ "b/caf\\303\\251.txt"',
      '@@ -1 +1 @@',
      '-a',
      '+b',
      'diff --git a/my file.txt b/my file.txt',
      '--- a/my file.txt\t',
      '+++ b/my file.txt\t',
      '@@ -0,0 +1 @@',
      '+c',
    ].join('\n');
    expect(addedLines(patch).added.map((l) => l.path)).toEqual(['café.txt', 'my file.txt']);
  });

  it('stops a hunk cut short and keeps reading headers after it', () => {
    const patch = '+++ b/a\n@@ -1,5 +1,5 @@\n+x\ndiff --git a/b b/b\n+++ b/b\n@@ -1 +1 @@\n-q\n+y\n';
    expect(addedLines(patch).added).toEqual([
      { path: 'a', line: 1, text: 'x' },
      { path: 'b', line: 1, text: 'y' },
    ]);
  });
});

describe('unquoteCString', () => {
  it('decodes C escapes and UTF-8 octal bytes', () => {
    expect(unquoteCString('"b/tab\\there \\"q\\" \\\\ \\303\\274"')).toBe('b/tab\there "q" \\ ü');
  });
});
