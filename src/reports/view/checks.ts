import type { Alert } from '../../analysis/rules/types.js';
import type { CheckResult, EvidenceItem } from '../../analysis/types.js';
import type { Severity } from '../../config/schema.js';
import { bounded, shellJoin } from '../markdown-text.js';
import { joined, paragraph, ROW_LIMIT } from './blocks.js';
import type { Block, Inline, Section } from './types.js';

const EVIDENCE_LIMIT = 20;
const CHAIN_LIMIT = 20;

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, error: 1, warning: 2, info: 3 };

/** Failed first, then by severity, then as the analysis listed them. */
function orderedChecks(checks: readonly CheckResult[]): CheckResult[] {
  return checks
    .map((check, index) => ({ check, index }))
    .sort(
      (a, b) =>
        Number(a.check.passed) - Number(b.check.passed) ||
        SEVERITY_RANK[a.check.severity] - SEVERITY_RANK[b.check.severity] ||
        a.index - b.index,
    )
    .map(({ check }) => check);
}

export function checksSection(checks: readonly CheckResult[]): Section {
  const section = { id: 'checks', nav: 'Checks' };
  if (checks.length === 0) return { ...section, title: 'Checks', blocks: [paragraph('No checks ran.')] };
  const ordered = orderedChecks(checks);
  const failed = ordered.filter((check) => !check.passed).length;
  return {
    ...section,
    title: `Checks (${failed} failed of ${checks.length})`,
    blocks: [
      {
        kind: 'table',
        columns: [{ title: '' }, { title: 'Check' }, { title: 'Severity' }, { title: 'Message' }],
        rows: ordered.map((check) => [
          { mark: check.passed ? 'passed' : 'failed' },
          { name: check.id },
          // A passing check's severity is what it would have cost, not an alarm: shown plain.
          check.passed ? check.severity : { severity: check.severity },
          { text: check.message },
        ]),
        rowTone: ordered.map((check) => (check.passed ? 'passed' : 'failed')),
      },
    ],
  };
}

/** What each failed check points at; absent when every check passed. */
export function evidenceSection(checks: readonly CheckResult[]): Section | null {
  const failed = orderedChecks(checks).filter((check) => !check.passed);
  if (failed.length === 0) return null;
  return {
    id: 'evidence',
    title: 'Evidence for failed checks',
    blocks: failed.map((check) => {
      const { shown, more } = bounded(check.evidence, EVIDENCE_LIMIT);
      const items = shown.length === 0 ? [['(no evidence items recorded)']] : shown.map(evidenceText);
      return {
        kind: 'subsection',
        tone: 'failed',
        title: [{ name: check.id }],
        blocks: [
          {
            kind: 'list',
            style: 'bullets',
            items: items.map((content) => ({ content })),
            more: { count: more, what: 'evidence items' },
          },
        ],
      };
    }),
  };
}

function evidenceText(item: EvidenceItem): Inline[] {
  const parts: Inline[][] = [];
  if (item.path !== undefined)
    parts.push(['path: ', { name: item.path }, ...(item.line === undefined ? [] : [`:${item.line}`])]);
  else if (item.line !== undefined) parts.push([`line: ${item.line}`]);
  if (item.command !== undefined) parts.push(['command: ', { name: item.command }]);
  if (item.detail !== undefined) parts.push([{ text: item.detail }]);
  return parts.length > 0 ? joined(parts, ' · ') : ['(empty evidence item)'];
}

/** Security alerts: what fired, on which resource, and the chain of processes that did it. */
export function alertsSection(alerts: readonly Alert[]): Section {
  const section = { id: 'alerts', nav: 'Alerts', title: `Security alerts (${alerts.length})` };
  if (alerts.length === 0) {
    return {
      ...section,
      blocks: [
        paragraph('None: no security rule matched the recorded system calls, network records or diff.'),
      ],
    };
  }
  const ordered = [...alerts].sort(
    (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.seq - b.seq,
  );
  const { shown, more } = bounded(ordered, ROW_LIMIT);
  const table: Block = {
    kind: 'table',
    columns: ['Severity', 'Rule', 'Class', 'Call', 'Resource', 'Process', 'At'].map((title) => ({ title })),
    rows: shown.map((a) => [
      { severity: a.severity },
      { name: a.rule },
      a.class,
      { name: a.syscall },
      { name: a.path ?? (a.host ? `${a.host}${a.port ? `:${a.port}` : ''}` : '-') },
      [
        { name: a.process.exe },
        ` (pid ${a.process.pid})${a.phase === 'tests' ? ', during the tests' : ''}${a.tool_call !== undefined ? `, tool call ${a.tool_call}` : ''}`,
      ],
      a.ts >= 0 ? `+${Math.round(a.ts)} ms` : '-',
    ]),
    more: { count: more, what: 'alerts' },
  };
  return { ...section, blocks: [table, ...shown.map(alertBlock)] };
}

function alertBlock(a: Alert): Block {
  const chain = bounded(a.process.chain, CHAIN_LIMIT);
  return {
    kind: 'subsection',
    tone: a.severity,
    title: [{ name: a.rule }],
    blocks: [
      paragraph({ text: a.message }, a.count > 1 ? ` (${a.count} times)` : ''),
      paragraph('Process chain, acting process first:'),
      {
        kind: 'list',
        style: 'chain',
        items: chain.shown.map((p) => ({
          content: [`pid ${p.pid}: `, { name: p.exe }, ' — ', { name: shellJoin(p.argv), max: 200 }],
        })),
        more: { count: chain.more, what: 'processes up the chain' },
      },
    ],
  };
}
