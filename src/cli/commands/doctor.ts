import { spawnSync } from 'node:child_process';
import { installedAgents } from '../../agents/install/index.js';
import { checkAvailability } from '../../observe/ebpf/availability.js';
import { BPFTRACE_ENGINE, COLLECTOR_ENGINE, collectorAvailability } from '../../observe/ebpf/engine.js';
import { WAKEUP_EVENTS, wakeupBatching } from '../../observe/ebpf/wakeup-batching.js';
import { TRACERS } from '../../observe/index.js';
import { renderTable } from '../../reports/table.js';
import { bwrapAvailability } from '../../sandbox/bwrap.js';
import { containerAvailability } from '../../sandbox/container.js';
import { microvmFindings } from '../../sandbox/microvm/doctor.js';
import type { CliIO } from '../io.js';

type Finding = { component: string; name: string; works: boolean; detail: string; fix: string };

/** What can run on this host, and for each thing that cannot, the exact command that would fix it. */
export async function doctorCommand(io: CliIO, opts: { json?: boolean }): Promise<number> {
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

  const bwrap = bwrapAvailability();
  add('sandbox', 'bwrap', bwrap);
  for (const engine of ['podman', 'docker'] as const)
    add('sandbox', `container (${engine})`, await containerAvailability(engine));
  add('sandbox', 'local', { ok: true, version: 'always available; no isolation' });
  for (const f of microvmFindings()) add('sandbox', f.name, f.result);

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

  const isolated = bwrap.ok
    ? { ok: true as const, version: 'enforced by bwrap --unshare-net; DNS and proxy requests are recorded' }
    : { ok: false as const, reason: 'needs the bwrap sandbox', fix: bwrap.fix };
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

  if (opts.json) {
    io.out(JSON.stringify(findings, null, 2));
  } else {
    io.out(
      renderTable(
        ['component', 'name', 'works', 'detail', 'fix'],
        findings.map((f) => [f.component, f.name, f.works ? 'yes' : 'NO', f.detail, f.fix || '-']),
      ),
    );
  }
  return 0;
}
