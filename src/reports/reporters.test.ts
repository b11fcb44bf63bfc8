import { describe, expect, it } from 'vitest';
import { parseStarGraph } from '../analysis/reliability/graph-schema.js';
import { hostileRun } from './html/test-pages.js';
import { RunReportFileSchema } from './report-schema.js';
import { REPORT_FILES, REPORTERS, type ReportKind, reportPath } from './reporters.js';
import { reportView } from './view/report-view.js';

const { report, graph } = hostileRun();
const input = { report, view: reportView(report), graph, version: '9.9.9' };
const rendered = new Map<ReportKind, string>(REPORTERS.map((r) => [r.kind, r.render(input)]));
const page = (kind: ReportKind) => rendered.get(kind) ?? '';

describe('the reporter registry', () => {
  it('names each output once, and the run report lists every one of them', () => {
    expect(new Set(REPORT_FILES).size).toBe(REPORTERS.length);
    expect(new Set(REPORTERS.map((r) => r.kind)).size).toBe(REPORTERS.length);
    for (const file of REPORT_FILES) expect(report.artifacts).toContain(file);
    expect(reportPath('/runs/x', 'markdown')).toBe('/runs/x/report.md');
  });

  it('renders every output from the one input', () => {
    expect(JSON.parse(page('json')).run_id).toBe(report.run_id);
    // What report.json readers check it against accepts what the writer wrote, and names a bad field.
    expect(RunReportFileSchema.safeParse(JSON.parse(page('json'))).success).toBe(true);
    const bad = RunReportFileSchema.safeParse({ ...JSON.parse(page('json')), score: 'high' });
    expect(bad.error?.issues[0]?.path).toEqual(['score']);
    expect(JSON.parse(page('sarif')).runs[0].tool.driver.version).toBe('9.9.9');
    expect(parseStarGraph(JSON.parse(page('graph'))).ok).toBe(true);
    expect(page('html').startsWith('<!doctype html>')).toBe(true);
    expect(page('markdown').startsWith('# ❌ FAIL')).toBe(true);
  });
});

describe('report.md and report.html from one view', () => {
  it('show the same sections in the same order (the star graph only where it can be drawn)', () => {
    const mdTitles = [...page('markdown').matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    const htmlTitles = [...page('html').matchAll(/<h2 id="[a-z]+">([^<]+)<\/h2>/g)].map((m) => m[1]);
    expect(mdTitles).toEqual(input.view.sections.filter((s) => s.id !== 'graph').map((s) => s.title));
    expect(htmlTitles).toEqual(input.view.sections.map((s) => s.title));
    expect(mdTitles).toContain('Security alerts (1)');
  });

  it('show each alert with its table row and its whole process chain in both', () => {
    const md = page('markdown');
    expect(md).toContain('| critical | secrets-canary-read | secrets | openat |');
    expect(md).toContain('### 🚨 secrets-canary-read');
    expect(md).toMatch(/- pid 12: \/usr\/bin\/cat — cat .*\n- pid 10: \/bin\/sh — sh -c/);
    const html = page('html');
    expect(html).toContain('<div class="alert alert-critical">');
    expect(html).toContain(
      '<h3><span class="sev-critical">critical</span> <code>secrets-canary-read</code></h3>',
    );
    expect(html).toContain(
      '<td><span class="sev-critical">critical</span></td><td><code>secrets-canary-read</code></td>',
    );
  });
});
