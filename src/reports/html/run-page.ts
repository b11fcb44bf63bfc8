import type { StarGraph } from '../../analysis/reliability/types.js';
import type { AgentOutcome } from '../../evidence/bundle-types.js';
import { formatDuration } from '../markdown-text.js';
import type { RunReport } from '../types.js';
import { esc } from './escape.js';
import { htmlPage } from './page.js';
import { activitySection, observationSection } from './run-activity.js';
import { starGraphSection } from './run-graph.js';
import { alertsSection, checksSection, commandsSection, diffSection, testsSection } from './run-sections.js';

/**
 * `report.html`: the run's report as one self-contained page, with its star graph drawn as inline
 * SVG. It loads nothing (a strict Content-Security-Policy says so to the browser too), runs no
 * script, and escapes every value that came from the agent's world. Same input, same bytes.
 */
export function renderRunHtml(report: RunReport, graph: StarGraph): string {
  const body = [
    headline(report),
    nav(),
    checksSection(report.checks),
    alertsSection(report.alerts),
    testsSection(report),
    diffSection(report),
    commandsSection(report.commands),
    starGraphSection(graph),
    activitySection(report.activity),
    observationSection(report.observation),
  ].join('\n');
  return htmlPage(`${report.result} · ${report.score}/100 · ${report.task.name} — agentguard`, body);
}

function headline(report: RunReport): string {
  const { agent, benchmark, task } = report;
  const verdict = report.result === 'PASS' ? 'pass' : 'fail';
  const agentName = [agent.name, agent.version].filter((p) => p !== null).join(' ');
  const facts = [
    `<strong>Agent:</strong> ${esc(agentName)} (${esc(agent.adapter)})${agent.model === null ? '' : ` · <strong>Model:</strong> ${esc(agent.model)}`} · <strong>Outcome:</strong> ${outcomeText(agent.outcome)}`,
    `Run <code>${esc(report.run_id)}</code> · started ${esc(report.started_at)} · took ${formatDuration(report.duration_ms)}`,
    `Run directory: <code>${esc(report.run_dir)}</code>`,
    `Task prompt sha256: <code>${esc(task.prompt_sha256)}</code>${task.prompt_file === undefined ? '' : ` (from <code>${esc(task.prompt_file)}</code>)`}`,
  ];
  if (task.description !== undefined) facts.push(`Description: ${esc(task.description)}`);
  const bench = [
    benchmark.id === null ? null : esc(benchmark.id),
    benchmark.version === null ? null : `version ${esc(benchmark.version)}`,
    benchmark.category === null ? null : `category ${esc(benchmark.category)}`,
    benchmark.difficulty === null ? null : `difficulty ${esc(benchmark.difficulty)}`,
    benchmark.tags.length === 0 ? null : `tags ${benchmark.tags.map((t) => esc(t)).join(', ')}`,
  ].filter((p) => p !== null);
  if (bench.length > 0) facts.push(`Benchmark: ${bench.join(' · ')}`);
  if (report.deductions.length > 0) {
    facts.push(
      `Deductions: ${report.deductions.map((d) => `<code>${esc(d.id)}</code> −${d.points} (${d.severity})`).join(', ')}`,
    );
  }
  const lines = [
    `<h1><span class="badge ${verdict}" id="verdict">${report.result}</span> score ${report.score}/100 · ${esc(task.name)}</h1>`,
    `<ul class="facts">${facts.map((f) => `<li>${f}</li>`).join('')}</ul>`,
  ];
  if (report.isolation_warning !== null) {
    lines.push(
      `<div class="warning" id="isolation-warning"><strong>⚠ Not isolated:</strong> ${esc(report.isolation_warning)}</div>`,
    );
  }
  return lines.join('\n');
}

function outcomeText(outcome: AgentOutcome): string {
  switch (outcome.status) {
    case 'completed':
      return 'completed (exit 0)';
    case 'failed':
      return `failed (${outcome.signal === null ? `exit ${outcome.exit_code ?? '?'}` : `signal ${esc(outcome.signal)}`})`;
    case 'timed-out':
      return `timed out after ${outcome.timeout_seconds} s`;
    case 'blocked':
      return `blocked: ${esc(outcome.reason)}`;
    case 'errored':
      return `errored: ${esc(outcome.error)}`;
    case 'stopped':
    case 'none':
      return esc(outcome.reason);
  }
}

function nav(): string {
  const links = [
    ['checks', 'Checks'],
    ['alerts', 'Alerts'],
    ['tests', 'Tests'],
    ['diff', 'Diff'],
    ['commands', 'Commands'],
    ['graph', 'Star graph'],
    ['activity', 'Activity'],
    ['observation', 'Observation'],
  ];
  return `<nav>${links.map(([id, text]) => `<a href="#${id}">${text}</a>`).join('')}</nav>`;
}
