import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkAvailability } from '../observe/ebpf/availability.js';
import { startBpftraceSession } from '../observe/ebpf/bpftrace-session.js';
import { startCollectorSession } from '../observe/ebpf/collector/collector-session.js';
import type { Paths } from '../observe/ebpf/collector/daemon.js';
import { collectorBinary } from '../observe/ebpf/collector/paths.js';
import { collectorAvailability } from '../observe/ebpf/engine.js';
import { straceTracer } from '../observe/strace/index.js';
import { AuditPeer } from './audit-peer.js';
import { type BenchTracer, benchTracer, childNamed, type TracedMode } from './tracer-overhead-run.js';

/**
 * The bench's own compiled collector: a socket in the bench folder rather than the host's shared
 * one, so that the figures are of the binary under test and of a daemon the bench started (another
 * run's collector on the host is left alone), and no idle exit during the bench. Each cold start
 * gets a fresh socket, and its daemon is ended after it.
 */
export class CollectorHost {
  private colds = 0;
  readonly warm: Paths;

  constructor(private readonly dir: string) {
    this.warm = this.paths('warm');
  }

  private paths(name: string): Paths {
    return {
      socket: path.join(this.dir, `${name}.sock`),
      lock: path.join(this.dir, `${name}.lock`),
      log: path.join(this.dir, `${name}.log`),
      binary: collectorBinary(),
      idleExitS: 3600,
    };
  }

  tracer(target: string, paths: Paths = this.warm): BenchTracer {
    return benchTracer(
      (ctx) => startCollectorSession(ctx, paths),
      target,
      () => [daemonPid(paths.socket)].filter((p): p is number => p !== null),
    );
  }

  /** An engine whose first start loads the collector from nothing, and its daemon's socket. */
  coldTracer(target: string): { tracer: BenchTracer; socket: string } {
    const paths = this.paths(`cold-${++this.colds}`);
    return { tracer: this.tracer(target, paths), socket: paths.socket };
  }

  /** Ends the daemon serving `socket` (one this bench started) and waits for it to detach its probes. */
  async end(socket: string, timeoutMs = 15_000): Promise<void> {
    const pid = daemonPid(socket);
    if (pid === null) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return;
    }
    const deadline = Date.now() + timeoutMs;
    while (daemonPid(socket) === pid && Date.now() < deadline) await sleep(50);
  }

  /** Every daemon this bench started, without waiting (for a signal handler). */
  endAllSync(): void {
    for (const pid of daemonsUnder(this.dir)) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {}
    }
  }

  async endAll(): Promise<void> {
    for (const pid of daemonsUnder(this.dir)) {
      const socket = socketOf(pid);
      if (socket) await this.end(socket);
    }
  }
}

/** The collector daemon listening on `socket`: found by its command line (it runs detached). */
function daemonPid(socket: string): number | null {
  for (const pid of collectorPids()) if (socketOf(pid) === socket) return pid;
  return null;
}

function daemonsUnder(dir: string): number[] {
  return collectorPids().filter((pid) => socketOf(pid)?.startsWith(`${dir}/`));
}

function collectorPids(): number[] {
  const binary = collectorBinary();
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => commandLine(pid)[0] === binary);
}

function socketOf(pid: number): string | null {
  const argv = commandLine(pid);
  const i = argv.indexOf('--socket');
  return i >= 0 ? (argv[i + 1] ?? null) : null;
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

export type Engines = {
  tracers: Partial<Record<TracedMode, BenchTracer>>;
  /** Engines left out, and why. */
  skipped: Partial<Record<TracedMode, string>>;
  collector: CollectorHost | null;
  audit: AuditPeer | null;
};

/**
 * Every engine this host can run. `dir` holds the collector's sockets and auditd's files; the
 * caller must close() what it returns (audit rules and settings are host-wide).
 */
export async function openEngines(dir: string, target: string): Promise<Engines> {
  const engines: Engines = { tracers: {}, skipped: {}, collector: null, audit: null };
  const collector = await collectorAvailability();
  if (collector.ok) {
    engines.collector = new CollectorHost(dir);
    engines.tracers.collector = engines.collector.tracer(target);
  } else engines.skipped.collector = `${collector.reason} (fix: ${collector.fix})`;
  const bpftrace = await checkAvailability();
  if (bpftrace.ok) {
    engines.tracers.bpftrace = benchTracer(startBpftraceSession, target, () =>
      [childNamed('bpftrace')].filter((p): p is number => p !== null),
    );
  } else engines.skipped.bpftrace = `${bpftrace.reason} (fix: ${bpftrace.fix})`;
  const strace = await straceTracer.available();
  if (strace.ok) engines.tracers.strace = benchTracer((ctx) => straceTracer.start(ctx), target);
  else engines.skipped.strace = `${strace.reason} (fix: ${strace.fix})`;
  const audit = await AuditPeer.start(path.join(dir, 'auditd'), target);
  if (typeof audit === 'string') engines.skipped.auditd = audit;
  else {
    engines.audit = audit;
    engines.tracers.auditd = audit.tracer();
  }
  return engines;
}

/** Puts the host back: audit state restored, auditd and the bench's collectors ended. */
export async function closeEngines(engines: Engines): Promise<void> {
  await engines.audit?.close();
  await engines.collector?.endAll();
}

export function closeEnginesSync(engines: Engines): void {
  engines.audit?.closeSync();
  engines.collector?.endAllSync();
}
