import type { AgentOutcome } from '../../evidence/bundle-types.js';
import { formatDuration, plural } from '../markdown-text.js';
import type { RunReport } from '../types.js';
import { joined } from './blocks.js';
import type { Headline, Inline } from './types.js';

/** The run's verdict and identity: what a reader needs before any section. */
export function headline(report: RunReport): Headline {
  const { agent, benchmark, task } = report;
  const agentName = [agent.name, agent.version].filter((part) => part !== null).join(' ');
  const lead: Inline[] = [
    { strong: ['Agent:'] },
    ' ',
    { text: agentName },
    ' (',
    { text: agent.adapter },
    ')',
    ...(agent.model === null ? [] : [' · ', { strong: ['Model:'] }, ' ', { text: agent.model }]),
    ' · ',
    { strong: ['Outcome:'] },
    ' ',
    ...outcomeText(agent.outcome),
  ];
  const facts: Inline[][] = [
    [
      'Run: ',
      { name: report.run_id },
      ' · started ',
      { text: report.started_at },
      ` · took ${formatDuration(report.duration_ms)}`,
    ],
    ['Run directory: ', { name: report.run_dir }],
    [
      'Task prompt sha256: ',
      { code: task.prompt_sha256 },
      ...(task.prompt_file === undefined ? [] : [' (from ', { name: task.prompt_file }, ')']),
    ],
  ];
  if (task.description !== undefined) facts.push(['Description: ', { text: task.description }]);
  const bench = [
    benchmark.id === null ? null : [{ text: benchmark.id }],
    benchmark.version === null ? null : ['version ', { text: benchmark.version }],
    benchmark.category === null ? null : ['category ', { text: benchmark.category }],
    benchmark.difficulty === null ? null : ['difficulty ', { text: benchmark.difficulty }],
    benchmark.tags.length === 0
      ? null
      : [
          'tags ',
          ...joined(
            benchmark.tags.map((tag) => [{ text: tag }]),
            ', ',
          ),
        ],
  ].filter((part) => part !== null);
  if (bench.length > 0) facts.push(['Benchmark: ', ...joined(bench, ' · ')]);
  const { usage } = report;
  if (usage) {
    const cost = usage.cost === null ? '' : ` · cost ${formatCost(usage.cost, usage.currency ?? '')}`;
    facts.push([
      `Model: ${plural(usage.requests, 'request')}, ${usage.input_tokens.toLocaleString('en-US')} input and ${usage.output_tokens.toLocaleString('en-US')} output tokens${cost} (`,
      { text: usage.source },
      ')',
    ]);
  }
  const guard = agent.guard;
  if (guard !== undefined) {
    const late = `the alert came ${guard.alert_latency_ms} ms after the call`;
    facts.push(
      guard.outcome === 'stopped'
        ? [
            'Guard (enforce): stopped the agent after critical alert ',
            { name: guard.rule },
            guard.stopped_after_ms == null
              ? ` (${late})`
              : `, gone ${guard.stopped_after_ms} ms after the alert (${late})`,
          ]
        : [
            'Guard (enforce): critical alert ',
            { name: guard.rule },
            ` came too late, ${guard.exited_before_ms ?? 0} ms after the agent had exited (${late}); nothing was stopped`,
          ],
    );
  }
  if (report.deductions.length > 0) {
    const parts = report.deductions.map((d) => [{ name: d.id }, ` −${d.points} (${d.severity})`]);
    facts.push(['Deductions: ', ...joined(parts, ', ')]);
  }
  return {
    result: report.result,
    passed: report.result === 'PASS',
    score: report.score,
    task: task.name,
    lead,
    facts,
    warning:
      report.isolation_warning === null
        ? null
        : { title: 'Not isolated', content: [{ text: report.isolation_warning }] },
  };
}

function outcomeText(outcome: AgentOutcome): Inline[] {
  switch (outcome.status) {
    case 'completed':
      return ['completed (exit 0)'];
    case 'failed':
      return outcome.signal === null
        ? [`failed (exit ${outcome.exit_code ?? '?'})`]
        : ['failed (signal ', { text: outcome.signal }, ')'];
    case 'timed-out':
      return [`timed out after ${outcome.timeout_seconds} s`];
    case 'blocked':
      return ['blocked: ', { text: outcome.reason }];
    case 'errored':
      return ['errored: ', { text: outcome.error }];
    case 'stopped':
    case 'none':
      return [{ text: outcome.reason }];
  }
}

/** A cost in the currency: two decimals, or two significant digits below one cent (a run often costs less). */
export function formatCost(cost: number, currency: string): string {
  return `${cost < 0.01 && cost > 0 ? cost.toPrecision(2) : cost.toFixed(2)} ${currency}`.trim();
}
