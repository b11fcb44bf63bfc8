import { describe, expect, it } from 'vitest';
import { renderCsv } from '../../reports/history-csv.js';
import { historyFilter } from './reports-filter.js';

describe('reports filters', () => {
  it('turns flags into a history filter, dates into ISO times', () => {
    expect(
      historyFilter(
        {
          agent: 'codex',
          task: 'js-slugify',
          result: 'error',
          since: '2026-12-01',
          until: '2026-12-02T10:00:00Z',
          limit: '5',
        },
        20,
      ),
    ).toEqual({
      limit: 5,
      agent: 'codex',
      task: 'js-slugify',
      result: 'ERROR',
      since: '2026-12-01T00:00:00.000Z',
      until: '2026-12-02T10:00:00.000Z',
    });
    expect(historyFilter({}, 20)).toEqual({ limit: 20 });
    expect(historyFilter({ check: 'scope', rule: 'my-own-rule' }, 20)).toEqual({
      limit: 20,
      check: 'scope',
      rule: 'my-own-rule',
    });
  });

  it('refuses a bad value in one sentence naming the flag and the fix', () => {
    expect(() => historyFilter({ result: 'MAYBE' }, 20)).toThrow(
      /--result MAYBE is not a verdict\. Fix: use --result PASS, FAIL or ERROR\./,
    );
    expect(() => historyFilter({ since: 'yesterday' }, 20)).toThrow(/--since yesterday is not a date\. Fix:/);
    expect(() => historyFilter({ limit: '0' }, 20)).toThrow(
      /--limit '0' is not a whole number ≥ 1\. Fix: e\.g\. --limit 50\./,
    );
    expect(() => historyFilter({ limit: '2.5' }, 20)).toThrow(/--limit '2.5'/);
    expect(() => historyFilter({ check: 'scop' }, 20)).toThrow(
      "--check scop is not a check id. Fix: did you mean --check scope? 'agentguard checks' lists them.",
    );
    expect(() => historyFilter({ check: 'zzzzzzzzzzzzzzzz' }, 20)).toThrow(
      "--check zzzzzzzzzzzzzzzz is not a check id. Fix: 'agentguard checks' lists them.",
    );
  });
});

describe('history CSV', () => {
  it('quotes what needs quoting, joins lists and defuses spreadsheet formulas', () => {
    const csv = renderCsv(
      ['run_id', 'name', 'score', 'failed_checks', 'model'],
      [
        {
          run_id: 'r1',
          name: 'say "hi", then\nleave',
          score: -5,
          failed_checks: ['scope', 'tests-pass'],
          model: null,
        },
        { run_id: 'r2', name: '=HYPERLINK("x")', score: 100, failed_checks: [], model: 'm' },
      ],
    );
    expect(csv).toBe(
      'run_id,name,score,failed_checks,model\n' +
        'r1,"say ""hi"", then\nleave",-5,scope;tests-pass,\n' +
        `r2,"'=HYPERLINK(""x"")",100,,m\n`,
    );
  });
});
