import { describe, expect, it } from 'vitest';
import { buildRunReport } from './build.js';
import { renderMarkdown } from './markdown.js';
import {
  FIXTURE_PATCH_SECRET,
  FIXTURE_PROMPT,
  fixtureAnalysis,
  fixtureBundle,
  normaliseReportText,
  OUTPUT_MARKERS,
} from './test-fixture.js';
import { reportView } from './view/report-view.js';

/** Cells of a markdown table row: split on pipes that no backslash escapes. */
function cells(line: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i];
    if (ch === '\\') {
      current += ch + (line[i + 1] ?? '');
      i += 1;
    } else if (ch === '|') {
      out.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current);
  // A row starts and ends with a pipe: drop the empty text outside them.
  return out.slice(1, -1);
}

/** Every table in the page as its lines. */
function tables(markdown: string): string[][] {
  const result: string[][] = [];
  let current: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) current.push(line);
    else if (current.length > 0) {
      result.push(current);
      current = [];
    }
  }
  if (current.length > 0) result.push(current);
  return result;
}

const bundle = fixtureBundle();
const markdown = renderMarkdown(
  reportView(buildRunReport(bundle, fixtureAnalysis(), { artifacts: ['evidence/commands.jsonl'] })),
);

describe('renderMarkdown', () => {
  // A .snap file rather than a .md file snapshot: biome reformats markdown tables.
  it('matches the report.md snapshot', () => {
    expect(normaliseReportText(markdown)).toMatchSnapshot();
  });

  it('keeps every table row at its header width despite hostile values', () => {
    const found = tables(markdown);
    expect(found.length).toBeGreaterThanOrEqual(6);
    for (const table of found) {
      const width = cells(table[0] ?? '').length;
      expect(width).toBeGreaterThan(1);
      for (const row of table) expect(cells(row), row).toHaveLength(width);
    }
  });

  it('shows the hostile file name on one escaped line', () => {
    const row = markdown.split('\n').find((line) => line.startsWith('| added | docs/evil'));
    expect(row).toBe('| added | docs/evil\\`name\\\\n\\| injected \\| cell \\|.md | +2 | −0 |   |');
  });

  it('puts the headline, the isolation warning and failed checks first', () => {
    expect(markdown.startsWith('# ❌ FAIL · score 25/100 · fix-off-by-one\n')).toBe(true);
    expect(markdown).toContain(
      "> ⚠️ **Not isolated:** sandbox 'local': the agent ran on the host without isolation",
    );
    const checkRows = markdown.split('\n').filter((line) => /^\| (✅|❌) \|/.test(line));
    expect(checkRows.map((line) => cells(line)[1]?.trim())).toEqual([
      'tests-pass',
      'scope',
      'forbidden-paths',
      'diff-size',
    ]);
  });

  it('never includes the raw prompt; command output only under "Why it failed", the patch only as Diff hunks', () => {
    expect(markdown).not.toContain(FIXTURE_PROMPT);
    expect(markdown).not.toContain(FIXTURE_PATCH_SECRET);
    const section = (title: string) =>
      markdown.slice(markdown.indexOf(title), markdown.indexOf('\n## ', markdown.indexOf(title) + 1));
    const why = section('## Why it failed');
    const diff = section('## Diff');
    expect(why).toContain('STDOUT-MARKER-1');
    expect(diff).toContain('#### src/range.ts');
    expect(diff).toContain('-  return [...Array(n + 1).keys()]; // PATCH-MARKER-3');
    const rest = markdown.replace(why, '').replace(diff, '');
    for (const marker of OUTPUT_MARKERS) expect(rest).not.toContain(marker);
  });

  it('bounds the diff table and says how many files it left out', () => {
    const files = Array.from({ length: 53 }, (_, i) => ({
      path: `src/f${i}.ts`,
      status: 'added' as const,
      added: 1,
      deleted: 0,
      binary: false,
    }));
    const big = fixtureBundle({ diff: { ...bundle.diff, files } });
    const text = renderMarkdown(reportView(buildRunReport(big, fixtureAnalysis())));
    expect(text).toContain('| added | src/f49.ts |');
    expect(text).not.toContain('src/f50.ts');
    expect(text).toContain('…and 3 more files.');
  });

  it('has no isolation warning for an isolated run and says when no tracer ran', () => {
    const isolated = fixtureBundle({
      observation: {
        ...bundle.observation,
        sandbox: { kind: 'bwrap', version: '0.8.0', isolated: true },
        tracer: { requested: 'off', kind: 'off', lost_events: 0 },
      },
    });
    const text = renderMarkdown(reportView(buildRunReport(isolated, fixtureAnalysis())));
    expect(text).not.toContain('Not isolated');
    expect(text).toContain('No syscall evidence: the tracer was off');
  });
});
