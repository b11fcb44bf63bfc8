import type { Observation } from '../../evidence/types.js';
import { formatDuration } from '../markdown-text.js';
import type { ActivitySummary, FileActivity } from '../types.js';
import { esc } from './escape.js';
import { htmlTable, moreNote } from './page.js';

/** What the system-call and proxy evidence says the agent's processes did, as in report.md. */
export function activitySection(activity: ActivitySummary): string {
  const lines = ['<h2 id="activity">System activity</h2>'];
  if (!activity.syscall_evidence) {
    lines.push('<p>No system-call evidence: the tracer was off, so processes and files are not known.</p>');
  } else {
    const programs = activity.execs.map((e) => `<code>${esc(e.command)}</code> ×${e.count}`).join(', ');
    const moreExecs = activity.omitted.execs > 0 ? `, …and ${activity.omitted.execs} more` : '';
    lines.push(
      '<ul class="facts">',
      `<li>Processes: ${activity.processes}</li>`,
      `<li>Programs run: ${programs || 'none'}${moreExecs}</li>`,
      `<li>Runtime files opened (loader, libraries, locale, devices): ${activity.runtime_files}</li>`,
      '</ul>',
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
  lines.push('<h3>Network destinations</h3>');
  if (activity.hosts.length === 0) {
    lines.push(`<p>${activity.syscall_evidence ? 'None.' : 'None seen by the proxy.'}</p>`);
  } else {
    const rows = activity.hosts.map((h) => [
      `<code>${esc(h.host)}</code>`,
      h.port === null ? '' : String(h.port),
      h.source,
      h.decision === 'denied' ? '<strong class="sev-error">denied</strong>' : h.decision,
      String(h.count),
    ]);
    lines.push(
      htmlTable(['Host', 'Port', 'Source', 'Decision', 'Count'], rows, { numeric: [1, 4] }),
      moreNote(activity.omitted.hosts, 'destinations'),
    );
  }
  return lines.join('\n');
}

function fileTable(title: string, files: readonly FileActivity[], omitted: number): string {
  if (files.length === 0) return `<h3>${title}</h3>\n<p>None.</p>`;
  const rows = files.map((f) => [`<code>${esc(f.path)}</code>`, String(f.count)]);
  return [
    `<h3>${title}</h3>`,
    htmlTable(['Path', 'Opens'], rows, { numeric: [1] }),
    moreNote(omitted, 'paths'),
  ].join('\n');
}

/** What observed the run, so a reader knows how far the evidence (and the graph) can be trusted. */
export function observationSection(observation: Observation): string {
  const { sandbox, tracer, network } = observation;
  const version = (v: string | undefined) => (v === undefined ? '' : ` ${esc(v)}`);
  const items = [
    `Sandbox: ${esc(sandbox.kind)}${version(sandbox.version)} — ${sandbox.isolated ? 'isolated' : '<strong>not isolated</strong>'}${sandbox.detail === undefined ? '' : ` (${esc(sandbox.detail)})`}`,
    `Tracer: ${esc(tracer.kind)}${version(tracer.version)} (requested ${esc(tracer.requested)})${tracer.reason === undefined ? '' : ` — ${esc(tracer.reason)}`}; lost events: ${tracer.lost_events}`,
    `Network: ${esc(network.mode)}${network.proxy === undefined ? '' : ` via proxy <code>${esc(network.proxy)}</code>`}`,
    `Kernel: ${esc(observation.kernel)}`,
  ];
  if (tracer.incomplete !== undefined)
    items.push(`<strong>Observation incomplete:</strong> ${esc(tracer.incomplete)}`);
  if (observation.window !== null) {
    const { opened_ms, closed_ms } = observation.window;
    items.push(`Observation window: ${formatDuration(Math.max(0, closed_ms - opened_ms))}`);
  }
  for (const f of observation.fallbacks) {
    items.push(
      `Fallback for ${esc(f.component)}: wanted ${esc(f.wanted)}, used ${esc(f.used)} — ${esc(f.reason)}`,
    );
  }
  return [
    '<h2 id="observation">Observation</h2>',
    `<ul class="facts">${items.map((i) => `<li>${i}</li>`).join('')}</ul>`,
  ].join('\n');
}
