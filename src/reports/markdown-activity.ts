import type { Observation, TimelineEvent } from '../evidence/types.js';
import { bounded, formatDuration, md, moreLine, table } from './markdown-text.js';
import type { ActivitySummary, FileActivity } from './types.js';

const TIMELINE_LIMIT = 100;

export function activitySection(activity: ActivitySummary): string[] {
  const lines = ['## System activity', ''];
  if (!activity.syscall_evidence) {
    lines.push('No syscall evidence: the tracer was off, so processes and files are not known.');
  } else {
    const programs = activity.execs.map((exec) => `${md(exec.command)} ×${exec.count}`).join(', ');
    lines.push(
      `- Processes: ${activity.processes}`,
      `- Programs run: ${programs || 'none'}${activity.omitted.execs > 0 ? `, …and ${activity.omitted.execs} more` : ''}`,
      `- Runtime files opened (loader, libraries, locale, devices): ${activity.runtime_files}`,
    );
    lines.push(
      ...fileTable(
        'Files read outside the workspace',
        activity.files_read_outside_workspace,
        activity.omitted.files_read_outside_workspace,
      ),
    );
    lines.push(
      ...fileTable(
        'Files written outside the workspace',
        activity.files_written_outside_workspace,
        activity.omitted.files_written_outside_workspace,
      ),
    );
    lines.push(
      ...fileTable(
        'Files written inside the workspace',
        activity.files_written_inside_workspace,
        activity.omitted.files_written_inside_workspace,
      ),
    );
  }
  lines.push('', '### Network destinations', '');
  if (activity.hosts.length === 0) {
    lines.push(activity.syscall_evidence ? 'None.' : 'None seen by the proxy.');
  } else {
    const rows = activity.hosts.map((host) => [
      md(host.host),
      host.port === null ? '' : String(host.port),
      host.source,
      host.decision === 'denied' ? '⛔ denied' : host.decision,
      String(host.count),
    ]);
    lines.push(
      ...table(['Host', 'Port', 'Source', 'Decision', 'Count'], rows),
      ...moreLine(activity.omitted.hosts, 'destinations'),
    );
  }
  return lines;
}

function fileTable(title: string, files: FileActivity[], omitted: number): string[] {
  if (files.length === 0) return ['', `### ${title}`, '', 'None.'];
  const rows = files.map((file) => [md(file.path), String(file.count)]);
  return ['', `### ${title}`, '', ...table(['Path', 'Opens'], rows), ...moreLine(omitted, 'paths')];
}

export function timelineSection(timeline: TimelineEvent[]): string[] {
  if (timeline.length === 0) return [];
  const { shown, more } = bounded(timeline, TIMELINE_LIMIT);
  const rows = shown.map((event) => [
    `+${formatDuration(event.ts)}`,
    event.phase,
    md(event.event),
    event.detail === undefined ? '' : md(event.detail),
  ]);
  return ['## Timeline', '', ...table(['At', 'Phase', 'Event', 'Detail'], rows), ...moreLine(more, 'events')];
}

export function observationSection(observation: Observation): string[] {
  const { sandbox, tracer, network } = observation;
  const version = (v: string | undefined) => (v === undefined ? '' : ` ${md(v)}`);
  const lines = [
    '## Observation',
    '',
    `- Sandbox: ${md(sandbox.kind)}${version(sandbox.version)} — ${sandbox.isolated ? 'isolated' : '**not isolated**'}${sandbox.detail === undefined ? '' : ` (${md(sandbox.detail)})`}`,
    `- Tracer: ${md(tracer.kind)}${version(tracer.version)} (requested ${md(tracer.requested)})${tracer.reason === undefined ? '' : ` — ${md(tracer.reason)}`}; lost events: ${tracer.lost_events}`,
    `- Network: ${md(network.mode)}${network.proxy === undefined ? '' : ` via proxy ${md(network.proxy)}`}`,
    `- Kernel: ${md(observation.kernel)}`,
  ];
  if (tracer.incomplete !== undefined) lines.push(`- **Observation incomplete:** ${md(tracer.incomplete)}`);
  if (observation.window !== null) {
    const { opened_ms, closed_ms } = observation.window;
    lines.push(`- Observation window: ${formatDuration(Math.max(0, closed_ms - opened_ms))}`);
  }
  if (observation.fallbacks.length > 0) {
    lines.push('- Fallbacks:');
    for (const f of observation.fallbacks) {
      lines.push(`  - ${md(f.component)}: wanted ${md(f.wanted)}, used ${md(f.used)} — ${md(f.reason)}`);
    }
  }
  return lines;
}
