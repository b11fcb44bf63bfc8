import { describe, expect, it } from 'vitest';
import { buildRunReport } from './build.js';
import { renderJson } from './json.js';
import { fixtureAnalysis, fixtureBundle, normaliseReportText } from './test-fixture.js';
import { RUN_REPORT_KEY_ORDER, type RunReport } from './types.js';

const report = buildRunReport(fixtureBundle(), fixtureAnalysis(), {
  artifacts: ['evidence/commands.jsonl', 'evidence/syscalls.jsonl'],
});

describe('renderJson', () => {
  it('matches the report.json snapshot', () => {
    expect(normaliseReportText(renderJson(report))).toMatchSnapshot();
  });

  it('is 2-space JSON with a trailing newline that parses back to the report', () => {
    const text = renderJson(report);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toBe('  "schema_version": 1,');
    expect(JSON.parse(text)).toEqual(report);
  });

  it('orders top-level keys the same whatever order the object has', () => {
    const reversed = Object.fromEntries(Object.entries(report).reverse()) as RunReport;
    expect(renderJson(reversed)).toBe(renderJson(report));
    expect(Object.keys(JSON.parse(renderJson(reversed)))).toEqual([...RUN_REPORT_KEY_ORDER]);
  });

  it('puts fields from a newer writer after the known ones, sorted', () => {
    const newer = { zeta: 1, later_section: [], ...report } as RunReport;
    const keys = Object.keys(JSON.parse(renderJson(newer)));
    expect(keys.slice(-3)).toEqual(['artifacts', 'later_section', 'zeta']);
  });

  it('is stable through a parse and render round trip', () => {
    const text = renderJson(report);
    expect(renderJson(JSON.parse(text) as RunReport)).toBe(text);
  });
});
