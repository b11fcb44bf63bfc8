import { describe, expect, it } from 'vitest';
import { analyseAblation } from '../ablation/ablation.js';
import { type AblationReport, renderAblationMarkdown } from '../ablation/ablation-report.js';
import type { CatalogEntry } from './catalog-schema.js';
import { erroredEntry, judgeEntry, summarise } from './judge.js';
import { type MutationReport, mutationFindings, renderMutationMarkdown } from './mutation-report.js';

const entry = (id: string, checks: CatalogEntry['must_fail']['checks']): CatalogEntry => ({
  id,
  category: 'paths',
  description: 'd',
  fixture: 'py-inventory',
  actions: [],
  must_fail: { checks, rules: [] },
  must_not_fail: { checks: [], rules: [] },
  verdict: checks.length > 0 ? 'FAIL' : 'PASS',
});

describe('the mutation report', () => {
  const outcomes = [
    judgeEntry(entry('notes', ['scope']), { checks: ['scope'], rules: [], verdict: 'FAIL', score: 75 }),
    judgeEntry(entry('quiet', []), { checks: [], rules: ['persist-git-hook'], verdict: 'FAIL', score: 75 }),
    erroredEntry(
      entry('broken', ['scope']),
      'action 1 (delete-file) failed: x does not exist in the workspace',
    ),
  ];
  const summary = summarise(outcomes, ['persist-git-hook']);

  it('states misses, false alarms, errors and (for a whole catalog) what no entry detects', () => {
    const findings = mutationFindings(outcomes, summary, true);
    expect(findings).toContain('quiet: false alarm (rule:persist-git-hook, verdict:FAIL)');
    expect(findings).toContain(
      'broken: could not be carried out: action 1 (delete-file) failed: x does not exist in the workspace',
    );
    expect(findings.some((f) => f.startsWith('no entry detects check(s): agent-exit'))).toBe(true);
    expect(findings).toContain('no entry detects default rule(s): persist-git-hook');
    expect(mutationFindings(outcomes, summary, false).some((f) => f.startsWith('no entry'))).toBe(false);
  });

  it('renders the summary, the entries and the per-check and per-rule tables', () => {
    const report: MutationReport = {
      kind: 'mutation-diagnostics',
      id: 'x',
      started_at: '2026-01-01T00:00:00.000Z',
      duration_ms: 1500,
      tracer: 'ebpf',
      sandbox: 'bwrap',
      selected: [],
      summary,
      entries: outcomes,
      findings: mutationFindings(outcomes, summary, true),
      interrupted: false,
    };
    const md = renderMutationMarkdown(report);
    expect(md).toContain(
      '3 entries in 1.5 s (tracer ebpf, sandbox bwrap): 1 detected, 0 safe and quiet, 0 missed, 1 with a false alarm, 1 errored.',
    );
    expect(md).toContain('| `notes` | paths | py-inventory | detected | FAIL 75 | scope |   |');
    expect(md).toContain('| `quiet` | paths | py-inventory | **false alarm** |');
    expect(md).toContain('| `scope` | 1 | 0 | 0 | 0 | notes |');
    expect(md).toContain('| `persist-git-hook` | 0 | 0 | 1 | 0 | **none** |');
    expect(md).toContain('does not estimate how');
  });
});

describe('the ablation report', () => {
  it('says when and why headline claims are withheld', () => {
    const analysis = analyseAblation([]);
    const report: AblationReport = {
      kind: 'ablation-diagnostics',
      id: 'y',
      started_at: '2026-01-01T00:00:00.000Z',
      duration_ms: 10,
      tracer: 'strace',
      selected: [],
      method: 'the method',
      errored: [],
      analysis,
      headline: null,
      suppressed_because: ['ci (trial 1): control missed: check:scope did not fire'],
      runs: [],
    };
    const md = renderAblationMarkdown(report);
    expect(md).toContain('**Headline contribution claims are suppressed**');
    expect(md).toContain('- ci \\(trial 1\\): control missed: check:scope did not fire');
    expect(md).toContain('## Contributions (not claimable: controls invalid)');
    expect(md).toContain('One trial per entry');
  });
});
