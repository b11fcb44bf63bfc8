import { describe, expect, it } from 'vitest';
import { HUNK_LINES_PER_FILE, HUNK_LINES_TOTAL, patchHunks } from './diff-hunks.js';

function filePatch(name: string, added: number): string {
  const lines = Array.from({ length: added }, (_, i) => `+line ${i}`);
  return [
    `diff --git a/${name} b/${name}`,
    'index 0000000..1111111 100644',
    `--- a/${name}`,
    `+++ b/${name}`,
    `@@ -1,1 +1,${added + 1} @@`,
    ' kept',
    ...lines,
  ].join('\n');
}

describe('the diff hunks a report shows', () => {
  it('keeps each file’s hunk lines, not git’s headers', () => {
    const { files } = patchHunks(`${filePatch('src/a.js', 2)}\n${filePatch('src/b.js', 1)}\n`);
    expect(files).toEqual([
      { path: 'src/a.js', lines: ['@@ -1,1 +1,3 @@', ' kept', '+line 0', '+line 1'], omitted: 0 },
      { path: 'src/b.js', lines: ['@@ -1,1 +1,2 @@', ' kept', '+line 0'], omitted: 0 },
    ]);
  });

  it('bounds each file and the whole page, and counts what it left out', () => {
    const patch = Array.from({ length: 8 }, (_, i) => filePatch(`f${i}.txt`, 200)).join('\n');
    const { files, omitted_files } = patchHunks(patch);
    expect(files[0]?.lines).toHaveLength(HUNK_LINES_PER_FILE);
    expect(files[0]?.omitted).toBe(202 - HUNK_LINES_PER_FILE);
    expect(files.reduce((n, f) => n + f.lines.length, 0)).toBe(HUNK_LINES_TOTAL);
    expect(omitted_files).toBe(8 - HUNK_LINES_TOTAL / HUNK_LINES_PER_FILE);
  });

  it('shows a binary file as nothing and cuts a minified line', () => {
    const binary = 'diff --git a/x.bin b/x.bin\nindex 1..2 100644\nBinary files a/x.bin and b/x.bin differ';
    const long = `diff --git a/m.js b/m.js\n--- a/m.js\n+++ b/m.js\n@@ -0,0 +1 @@\n+${'x'.repeat(5000)}`;
    const { files } = patchHunks(`${binary}\n${long}`);
    expect(files.map((f) => f.path)).toEqual(['m.js']);
    expect(files[0]?.lines[1]).toBe(`+${'x'.repeat(399)}…`);
  });
});
