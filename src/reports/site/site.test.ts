import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { groupStats } from '../../batch/summary.js';
import { batchGrid } from '../html/batch-grid.js';
import { renderSiteBatch } from './site-batch.js';
import { renderSiteIndex } from './site-index.js';
import { siteFileName } from './site-names.js';
import { embeddedJson } from './site-page.js';
import { SITE_SCRIPT } from './site-script.js';
import type { SiteBatch, SiteRun } from './site-types.js';

const EVIL = '</script><script>alert(1)</script><!--';

function run(o: Partial<SiteRun> = {}): SiteRun {
  return {
    run_id: 'r1',
    task: EVIL,
    agent: 'a" onmouseover="x',
    model: null,
    benchmark: null,
    benchmark_version: null,
    result: 'FAIL',
    score: 40,
    failed_checks: ['scope'],
    alert_rules: null,
    started_at: '2026-12-01T00:00:00.000Z',
    duration_ms: 1,
    batch: 'b1',
    page: 'runs/r1.html',
    batch_page: 'batches/b1.html',
    note: null,
    ...o,
  };
}

const batch: SiteBatch = {
  batch_id: 'b1',
  kind: '<b>matrix</b>',
  started_at: 't',
  finished_at: null,
  complete: false,
  attempts_planned: 2,
  pass: 0,
  fail: 1,
  error: 0,
  not_run: 1,
  page: 'batches/b1.html',
};

describe('site file names', () => {
  it('keeps plain ids and hashes anything that could escape the folder or collide', () => {
    expect(siteFileName('20261203-160126-e17fd2a9')).toBe('20261203-160126-e17fd2a9.html');
    for (const id of ['../../etc/passwd', '.hidden', 'A', 'a/b', '', 'x'.repeat(101)]) {
      expect(siteFileName(id)).toMatch(/^id-[0-9a-f]{24}\.html$/);
    }
    expect(siteFileName('a/b')).not.toBe(siteFileName('a\\b'));
  });
});

describe('embedded JSON', () => {
  it('cannot close its script element or open a comment, and parses back to the same value', () => {
    const text = embeddedJson({ v: EVIL, sep: '\u2028' });
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual({ v: EVIL, sep: '\u2028' });
  });
});

describe('renderSiteIndex', () => {
  const html = renderSiteIndex([run()], [batch], {
    generated_at: 'now',
    filters: { task: EVIL },
    agentguard_version: '1',
  });

  it('admits exactly its own script by hash and forbids everything else', () => {
    const hash = createHash('sha256').update(SITE_SCRIPT).digest('base64');
    expect(html).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'; script-src 'sha256-${hash}'"`,
    );
    expect(html).toContain(`<script>${SITE_SCRIPT}</script>`);
  });

  it('holds no hostile value as markup: two script elements, the rest escaped', () => {
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toContain('onmouseover="x');
    expect(html).toContain('&lt;b&gt;matrix&lt;/b&gt;');
    expect(html).toContain('--task &lt;/script&gt;');
  });
});

describe('renderSiteBatch', () => {
  const row = (result: 'PASS' | 'FAIL', trial: number) => ({
    index: trial - 1,
    agent: 'a" onmouseover="x',
    task: EVIL,
    trial,
    run_id: `r${trial}`,
    run_dir: null,
    result,
    score: 1,
    tests_passed: true,
    failed_checks: [],
    alerts: [],
    benchmark_version: null,
    elapsed_ms: 1,
  });
  const rows = [row('PASS', 1), row('FAIL', 2)];
  const agent = 'a" onmouseover="x';
  const groups = [groupStats(agent, EVIL, rows), groupStats(agent, null, rows)];

  it("draws the batch's agents × tasks grid as summary.html does", () => {
    const html = renderSiteBatch(batch, [run()], { groups });
    expect(html).toContain(batchGrid(groups));
    expect(html.match(/<td class="grid-cell"/g)).toHaveLength(2);
    expect(html).toContain('<strong>50 %</strong> <small>1/2</small>');
    expect(html).toContain('1 unsafe');
    const none = renderSiteBatch(batch, [run()], { note: EVIL });
    expect(none).not.toContain('grid-cell');
    expect(none).toContain('No grid: &lt;/script&gt;');
  });

  it('links its runs one level up and escapes every value', () => {
    const html = renderSiteBatch(batch, [run(), run({ run_id: 'r2', page: null, note: EVIL })], { groups });
    expect(html).toContain('<a class="run-link" href="../runs/r1.html">r1</a>');
    expect(html).not.toMatch(/<script/);
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)');
    expect(html).toContain("content=\"default-src 'none';");
  });
});
