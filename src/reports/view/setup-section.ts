import type { SetupEvidence } from '../../evidence/bundle-types.js';
import { formatDuration } from '../markdown-text.js';
import { paragraph } from './blocks.js';
import type { Section } from './types.js';

/** What `setup.dependencies` installed before the agent started; null when the config had none. */
export function setupSection(setup: SetupEvidence | null): Section | null {
  if (!setup) return null;
  const denied = setup.network_records.filter((r) => r.decision === 'denied').length;
  return {
    id: 'setup',
    nav: 'Setup',
    title: 'Setup',
    blocks: [
      paragraph(
        'Installed before the agent started, in the sandbox but outside the monitoring window: ',
        'not judged as the agent’s behaviour. Network during setup: ',
        { text: setup.network },
        setup.network_records.length > 0
          ? ` (${setup.network_records.length} requests, ${denied} refused).`
          : '.',
      ),
      {
        kind: 'table',
        columns: [
          { title: 'Entry' },
          { title: 'Installs' },
          { title: 'From' },
          { title: 'Result' },
          { title: 'Time', numeric: true },
        ],
        rows: setup.dependencies.map((dep) => [
          { name: dep.entry },
          [`${dep.manager} `, { name: dep.manifest }, ' ', { code: dep.manifest_sha256.slice(0, 12) }],
          [`${dep.source} `, { name: dep.from }],
          dep.status === 'installed'
            ? { mark: 'passed' }
            : [{ mark: 'failed' }, ' ', { text: dep.error ?? 'failed' }, ` (${dep.command_ids.join(', ')})`],
          formatDuration(dep.duration_ms),
        ]),
        rowTone: setup.dependencies.map((dep) => (dep.status === 'installed' ? 'passed' : 'failed')),
      },
    ],
  };
}
