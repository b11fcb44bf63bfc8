import type { Observation, TimelineEvent } from '../../evidence/types.js';
import { bounded, formatDuration } from '../markdown-text.js';
import type { ActivitySummary, FileActivity } from '../types.js';
import { joined, paragraph } from './blocks.js';
import type { Block, Inline, ListItem, Section } from './types.js';

const TIMELINE_LIMIT = 100;

/** What the system-call and proxy evidence says the agent's processes did. */
export function activitySection(activity: ActivitySummary): Section {
  const blocks: Block[] = [];
  if (!activity.syscall_evidence) {
    blocks.push(paragraph('No syscall evidence: the tracer was off, so processes and files are not known.'));
  } else {
    const programs = activity.execs.map((exec): Inline[] => [{ name: exec.command }, ` ×${exec.count}`]);
    const moreExecs = activity.omitted.execs > 0 ? `, …and ${activity.omitted.execs} more` : '';
    blocks.push(
      {
        kind: 'list',
        style: 'facts',
        items: [
          { content: [`Processes: ${activity.processes}`] },
          {
            content: [
              'Programs run: ',
              ...(programs.length > 0 ? joined(programs, ', ') : ['none']),
              moreExecs,
            ],
          },
          {
            content: [`Runtime files opened (loader, libraries, locale, devices): ${activity.runtime_files}`],
          },
        ],
      },
      fileTable(
        'Files read outside the workspace',
        activity.files_read_outside_workspace,
        activity.omitted.files_read_outside_workspace,
      ),
      fileTable(
        'Files written outside the workspace',
        activity.files_written_outside_workspace,
        activity.omitted.files_written_outside_workspace,
      ),
      fileTable(
        'Files written inside the workspace',
        activity.files_written_inside_workspace,
        activity.omitted.files_written_inside_workspace,
      ),
    );
  }
  const hosts: Block =
    activity.hosts.length === 0
      ? paragraph(activity.syscall_evidence ? 'None.' : 'None seen by the proxy.')
      : {
          kind: 'table',
          columns: [
            { title: 'Host' },
            { title: 'Port', numeric: true },
            { title: 'Source' },
            { title: 'Decision' },
            { title: 'Count', numeric: true },
          ],
          rows: activity.hosts.map((host) => [
            { name: host.host },
            host.port === null ? '' : String(host.port),
            host.source,
            host.decision === 'denied' ? { flag: 'denied', icon: 'stop' } : host.decision,
            String(host.count),
          ]),
          more: { count: activity.omitted.hosts, what: 'destinations' },
        };
  blocks.push({ kind: 'subsection', title: ['Network destinations'], blocks: [hosts] });
  return { id: 'activity', nav: 'Activity', title: 'System activity', blocks };
}

function fileTable(title: string, files: readonly FileActivity[], omitted: number): Block {
  const body: Block =
    files.length === 0
      ? paragraph('None.')
      : {
          kind: 'table',
          columns: [{ title: 'Path' }, { title: 'Opens', numeric: true }],
          rows: files.map((file) => [{ name: file.path }, String(file.count)]),
          more: { count: omitted, what: 'paths' },
        };
  return { kind: 'subsection', title: [title], blocks: [body] };
}

export function timelineSection(timeline: readonly TimelineEvent[]): Section | null {
  if (timeline.length === 0) return null;
  const { shown, more } = bounded(timeline, TIMELINE_LIMIT);
  return {
    id: 'timeline',
    title: 'Timeline',
    blocks: [
      {
        kind: 'table',
        columns: ['At', 'Phase', 'Event', 'Detail'].map((title) => ({ title })),
        rows: shown.map((event) => [
          `+${formatDuration(event.ts)}`,
          event.phase,
          { text: event.event },
          event.detail === undefined ? '' : { text: event.detail },
        ]),
        more: { count: more, what: 'events' },
      },
    ],
  };
}

/** What observed the run, so a reader knows how far the evidence (and the graph) can be trusted. */
export function observationSection(observation: Observation): Section {
  const { sandbox, tracer, network } = observation;
  const version = (v: string | undefined): Inline[] => (v === undefined ? [] : [' ', { text: v }]);
  const items: ListItem[] = [
    {
      content: [
        'Sandbox: ',
        { text: sandbox.kind },
        ...version(sandbox.version),
        ' — ',
        sandbox.isolated ? 'isolated' : { strong: ['not isolated'] },
        ...(sandbox.detail === undefined ? [] : [' (', { text: sandbox.detail }, ')']),
      ],
    },
    {
      content: [
        'Tracer: ',
        { text: tracer.kind },
        ...version(tracer.version),
        ' (requested ',
        { text: tracer.requested },
        ')',
        ...(tracer.reason === undefined ? [] : [' — ', { text: tracer.reason }]),
        `; lost events: ${tracer.lost_events}`,
      ],
    },
    {
      content: [
        'Network: ',
        { text: network.mode },
        ...(network.proxy === undefined ? [] : [' via proxy ', { name: network.proxy }]),
      ],
    },
    { content: ['Kernel: ', { text: observation.kernel }] },
  ];
  if (tracer.incomplete !== undefined)
    items.push({ content: [{ strong: ['Observation incomplete:'] }, ' ', { text: tracer.incomplete }] });
  if (observation.window !== null) {
    const { opened_ms, closed_ms } = observation.window;
    items.push({ content: [`Observation window: ${formatDuration(Math.max(0, closed_ms - opened_ms))}`] });
  }
  if (observation.fallbacks.length > 0) {
    items.push({
      content: ['Fallbacks:'],
      children: observation.fallbacks.map((f) => [
        { text: f.component },
        ': wanted ',
        { text: f.wanted },
        ', used ',
        { text: f.used },
        ' — ',
        { text: f.reason },
      ]),
    });
  }
  return {
    id: 'observation',
    nav: 'Observation',
    title: 'Observation',
    blocks: [{ kind: 'list', style: 'facts', items }],
  };
}

export function artifactsSection(artifacts: readonly string[]): Section | null {
  if (artifacts.length === 0) return null;
  return {
    id: 'artifacts',
    title: 'Artifacts',
    blocks: [
      { kind: 'list', style: 'bullets', items: artifacts.map((name) => ({ content: [{ text: name }] })) },
    ],
  };
}
