import { spawnSync } from 'node:child_process';
import { installedAgents } from '../../agents/install/index.js';
import { checkAvailability } from '../../observe/ebpf/availability.js';
import { BPFTRACE_ENGINE, COLLECTOR_ENGINE, collectorAvailability } from '../../observe/ebpf/engine.js';
import { WAKEUP_EVENTS, wakeupBatching } from '../../observe/ebpf/wakeup-batching.js';
import { TRACERS } from '../../observe/index.js';
import { SANDBOXES } from '../../sandbox/index.js';
import type { CliIO } from '../io.js';
import { stepProgress } from '../phase-progress.js';
import { type Finding, TRIAL_NAME, trialRun } from './doctor-run.js';

/** What can run on this host, and for each thing that cannot, the exact command that would fix it. */
export async function doctorCommand(io: CliIO, opts: { json?: boolean }): Promise<number> {
  const progress = stepProgress(io, { command: 'doctor', json: opts.json === true });
  const findings = await diagnose(progress.step).finally(progress.stop);
  if (opts.json) io.out(JSON.stringify(findings, null, 2));
  else io.out(renderDoctor(findings));
  return 0;
}

async function diagnose(step: (label: string) => void): Promise<Finding[]> {
  const findings: Finding[] = [];
  const add = (
    component: string,
    name: string,
    a: { ok: true; version: string } | { ok: false; reason: string; fix: string },
  ) =>
    findings.push(
      a.ok
        ? { component, name, works: true, detail: a.version, fix: '' }
        : { component, name, works: false, detail: a.reason, fix: a.fix },
    );

  const git = spawnSync('git', ['--version'], { encoding: 'utf8' });
  add(
    'tool',
    'git',
    git.error
      ? { ok: false, reason: 'git is not installed', fix: 'apt-get install -y git' }
      : { ok: true, version: git.stdout.trim() },
  );

  // Every sandbox of the registry; which of them can hold an allow list decides the network rows.
  step('checking the sandboxes');
  const isolating: string[] = [];
  let isolationFix = '';
  for (const sandbox of Object.values(SANDBOXES)) {
    const rows = sandbox.doctorRows
      ? await sandbox.doctorRows()
      : [{ name: sandbox.kind, availability: await sandbox.available() }];
    for (const { name, availability } of rows) {
      const onHost = sandbox.capabilities.onHost && availability.ok;
      add('sandbox', name, onHost ? { ok: true, version: 'always available; no isolation' } : availability);
      if (!sandbox.capabilities.isolatesNetwork || !sandbox.capabilities.bridgesProxy) continue;
      if (!availability.ok) isolationFix ||= availability.fix;
      else if (!isolating.includes(sandbox.kind)) isolating.push(sandbox.kind);
    }
  }

  step('checking the tracers');
  for (const [name, tracer] of Object.entries(TRACERS)) add('tracer', name, await tracer.available());
  // Which engine serves `ebpf`, and why not the other.
  const collector = await collectorAvailability();
  add(
    'tracer',
    `ebpf engine: ${COLLECTOR_ENGINE}`,
    collector.ok ? { ok: true, version: `${collector.version}; used first` } : collector,
  );
  const bpftrace = await checkAvailability();
  add(
    'tracer',
    `ebpf engine: ${BPFTRACE_ENGINE}`,
    bpftrace.ok
      ? {
          ok: true,
          version: `${bpftrace.version}; ${collector.ok ? 'the fallback' : 'used, as the collector cannot run'} (compiles its probes for every run, ~6 s)`,
        }
      : bpftrace,
  );
  const batching = wakeupBatching();
  add(
    'tracer',
    'ebpf wakeup batching',
    batching.ok ? { ok: true, version: `bpftrace woken once per ${WAKEUP_EVENTS} records` } : batching,
  );
  add('tracer', 'off', { ok: true, version: 'always available; no system-call evidence' });

  const isolated =
    isolating.length > 0
      ? {
          ok: true as const,
          version: `enforced by the ${isolating.join(', ')} sandbox's own network namespace; DNS and proxy requests are recorded`,
        }
      : {
          ok: false as const,
          reason: 'needs a sandbox that takes the network away and bridges the proxy (bwrap)',
          fix: isolationFix,
        };
  add('network', 'none', isolated);
  add('network', 'allowlist', isolated);
  add('network', 'host', { ok: true, version: 'always available; traffic is not recorded' });

  for (const a of installedAgents()) {
    add(
      'agent',
      a.name,
      a.status === 'ok'
        ? { ok: true, version: `${a.package}@${a.version}` }
        : {
            ok: false,
            reason:
              a.status === 'other-version'
                ? `${a.package}@${a.version} installed, the profile pins ${a.pinned}`
                : a.status === 'incomplete'
                  ? `${a.dir} holds no usable install`
                  : `${a.dir} matches no built-in profile`,
            fix: a.status === 'no-profile' ? `rm -r ${a.dir}` : `agentguard agents install ${a.name}`,
          },
    );
  }

  step(`a trial run (${TRIAL_NAME})`);
  findings.push(await trialRun());
  return findings;
}

/** Doctor's page width: a terminal's usual 100 columns, whatever a detail's length. */
const WIDTH = 100;

/** A summary line first, then each component's findings, long details wrapped, each fix under its problem. */
export function renderDoctor(findings: readonly Finding[]): string {
  const broken = findings.filter((f) => !f.works);
  const summary =
    broken.length === 0
      ? `agentguard doctor: all ${findings.length} checks work here.`
      : `agentguard doctor: ${findings.length - broken.length} of ${findings.length} work; ` +
        `not here: ${broken.map((f) => f.name).join(', ')} (each fix below).`;
  const lines = wrap(summary, '', '  ');
  const nameWidth = 24;
  for (const component of [...new Set(findings.map((f) => f.component))]) {
    lines.push('', component);
    for (const f of findings.filter((x) => x.component === component)) {
      const mark = `  ${f.works ? 'ok' : 'NO'}  `;
      if (f.name.length > nameWidth) {
        lines.push(`${mark}${f.name}`);
        lines.push(
          ...wrap(f.detail, ' '.repeat(mark.length + nameWidth + 2), ' '.repeat(mark.length + nameWidth + 2)),
        );
      } else {
        const head = `${mark}${f.name.padEnd(nameWidth)}  `;
        lines.push(...wrap(f.detail, head, ' '.repeat(head.length)));
      }
      if (!f.works && f.fix) lines.push(...wrap(f.fix, '        fix: ', '             '));
    }
  }
  return lines.join('\n');
}

/** `text` word-wrapped to WIDTH after `first` (then `rest`) on each line; a word longer than a line stays whole. */
function wrap(text: string, first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = `${rest}${word}`;
    } else line = empty ? `${line}${word}` : `${line} ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}
