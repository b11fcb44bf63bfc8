import { describe, expect, it } from 'vitest';
import { buildRunReport } from '../reports/build.js';
import { FIXTURE_REPO, fixtureAnalysis, fixtureBundle } from '../reports/test-fixture.js';
import { githubAnnotations, githubSummary } from './github.js';

const report = () => {
  const r = buildRunReport(fixtureBundle(), fixtureAnalysis());
  r.alerts = [
    ...r.alerts,
    {
      rule: 'integrity-git-hook',
      class: 'integrity',
      severity: 'error',
      message: 'a git hook was written',
      syscall: 'openat',
      path: `${FIXTURE_REPO}/.git/hooks/pre-commit`,
    } as (typeof r.alerts)[number],
  ];
  return r;
};

describe('githubAnnotations', () => {
  it('annotates failed findings that name a file of the checkout, escaped as workflow commands', () => {
    const lines = githubAnnotations(report());
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatch(/^::(error|warning) file=[^:\n]+(,line=\d+)?,title=agentguard::/);
      expect(line).not.toContain('\n');
    }
    // The alert's absolute workspace path becomes a checkout path.
    expect(lines).toContain(
      '::error file=.git/hooks/pre-commit,title=agentguard::integrity-git-hook: a git hook was written',
    );
    // A file name with a newline or a comma cannot forge another command or property.
    expect(
      lines
        .join('\n')
        .split('\n')
        .every((l) => l.startsWith('::')),
    ).toBe(true);
  });

  it('says nothing for a passing run', () => {
    const r = report();
    r.checks = r.checks.map((c) => ({ ...c, passed: true }));
    r.alerts = [];
    expect(githubAnnotations(r)).toEqual([]);
  });
});

describe('githubSummary', () => {
  it('gives the verdict, score, failed checks, alerts and the links, one row per finding', () => {
    const md = githubSummary(
      report(),
      'main...HEAD',
      '/x/report.md',
      'https://github.com/o/r/actions/runs/1',
    );
    expect(md).toContain(`### agentguard ci: ❌ FAIL`);
    expect(md).toContain('Judged: main...HEAD');
    expect(md).toContain('| integrity-git-hook | error | changes |');
    expect(md).toContain('[https://github.com/o/r/actions/runs/1](https://github.com/o/r/actions/runs/1)');
    // Every table row stays one line.
    for (const line of md.split('\n').filter((l) => l.startsWith('|'))) expect(line.endsWith('|')).toBe(true);
  });
});
