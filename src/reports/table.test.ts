import { describe, expect, it } from 'vitest';
import { renderTable } from './table.js';

describe('renderTable', () => {
  it('sizes columns by content and trims trailing space', () => {
    const text = renderTable(
      ['RUN', 'RESULT', 'SCORE'],
      [
        ['run-1', 'PASS', '100'],
        ['a-much-longer-run', 'FAIL', '5'],
      ],
      { align: ['left', 'left', 'right'] },
    );
    expect(text).toMatchInlineSnapshot(`
      "RUN                RESULT  SCORE
      -----------------  ------  -----
      run-1              PASS      100
      a-much-longer-run  FAIL        5"
    `);
  });

  it('keeps every row on one line and pads short rows', () => {
    const text = renderTable(['NAME', 'NOTE'], [['evil\nname\u001b[31m'], ['ok', 'fine']]);
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe('evil\\nname\\u001b[31m');
    expect(lines[3]).toBe('ok                    fine');
  });

  it('counts characters, not UTF-16 units, for widths', () => {
    expect(renderTable(['X', 'Y'], [['✅😀', 'z']]).split('\n')[2]).toBe('✅😀  z');
  });
});
