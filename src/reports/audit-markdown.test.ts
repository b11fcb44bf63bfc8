import { describe, expect, it } from 'vitest';
import { renderRunAuditMarkdown, renderStaticAuditMarkdown } from './audit-markdown.js';
import type { RunAudit, StaticAudit } from './audit-types.js';

const STATIC: StaticAudit = {
  schema_version: 1,
  audit_id: 'A1',
  kind: 'static',
  registry: '/b/registry.yaml',
  created_at: '2026-01-01T00:00:00.000Z',
  families: [
    {
      id: 'py-inventory',
      contract: '/b/contracts/py-inventory.yaml',
      implied_by: null,
      variants: ['py-inventory'],
    },
    {
      id: 'attack-beacon',
      contract: '/b/attacks/beacon/expect.yaml',
      implied_by: '/b/attacks/beacon/expect.yaml',
      variants: ['attack-beacon'],
    },
  ],
  findings: [
    {
      severity: 'error',
      code: 'unknown-evidence-file',
      family: 'py-inventory',
      file: '/b/contracts/py-inventory.yaml',
      field: 'evidence[1]',
      message: "'evidence/diffs.patch' is not a file a run folder holds",
    },
  ],
  totals: { error: 1, warning: 0, skipped: 0 },
};

const RUN: RunAudit = {
  schema_version: 1,
  audit_id: 'A2',
  kind: 'run',
  registry: '/b/registry.yaml',
  created_at: '2026-01-01T00:00:00.000Z',
  finished_at: '2026-01-01T00:01:00.000Z',
  options: { trials: 2, strict: false, workers: 2 },
  batch: { id: 'B1', dir: '/o/batches/B1' },
  findings: [],
  outcomes: [
    {
      family: 'py-inventory',
      reference: 1,
      agent: 'mock-tamper-tests',
      variant: 'py-inventory',
      config: '/b/py-inventory/config.yaml',
      status: 'violated',
      trials: [1, 2].map((trial) => ({
        observed: {
          status: 'ran' as const,
          trial,
          run_id: `R${trial}`,
          run_dir: `/o/runs/R${trial}`,
          result: 'PASS' as const,
          checks: [{ id: 'test-tampering', passed: true }],
          alerts: trial === 2 ? ['net-dns-leak'] : [],
          changed_paths: [],
          evidence_present: [],
        },
        mismatches:
          trial === 1
            ? [
                {
                  severity: 'error' as const,
                  code: 'result' as const,
                  message: 'result PASS, the contract says FAIL',
                },
              ]
            : [
                {
                  severity: 'warning' as const,
                  code: 'unexpected-alert' as const,
                  message: "rule 'net-dns-leak' alerted",
                },
              ],
      })),
      across_trials: [{ severity: 'warning', code: 'unstable', message: 'the 2 trials disagree' }],
    },
    {
      family: 'citation-check',
      reference: 0,
      agent: 'config',
      variant: 'citation-check-codex',
      config: '/b/agents/citation-check/codex.yaml',
      status: 'skipped',
      skipped: 'skipped: agent not installed: codex',
      trials: [],
      across_trials: [],
    },
  ],
  totals: { match: 0, violated: 1, skipped: 1, errors: 1, warnings: 2 },
};

describe('audit.md', () => {
  it('of a static audit: the families, and each finding with its file and field', () => {
    expect(renderStaticAuditMarkdown(STATIC)).toMatchSnapshot();
  });

  it('of an execution audit: one row per reference, then every mismatch with its run folder', () => {
    const text = renderRunAuditMarkdown(RUN);
    expect(text).toContain('| py-inventory | mock-tamper-tests | py-inventory | violated | PASS, PASS | 2 |');
    expect(text).toContain('- trial 1 (/o/runs/R1): ERROR result: result PASS, the contract says FAIL');
    expect(text).toMatchSnapshot();
  });
});
