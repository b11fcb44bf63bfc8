import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SpawnSpec } from '../exec/types.js';
import type { TracerContext } from '../observe/types.js';
import {
  AuditLogCounter,
  type AuditStatus,
  auditRules,
  endMarker,
  parseAuditStatus,
  parseRuleList,
  parseSyscallTable,
} from './audit-rules.js';
import type { BenchOutput, BenchSession, BenchTracer } from './tracer-overhead-run.js';

/** How long auditd may take to write a run's records once the run is over. */
const DRAIN_TIMEOUT_MS = 120_000;
/** Debian's shipped rules.d/audit.rules settings: the peer as a user installs it. */
const PEER_SETTINGS = ['-b', '8192', '--backlog_wait_time', '60000', '-f', '1', '-r', '0'];

function auditctl(args: string[]): { ok: boolean; out: string } {
  const r = spawnSync('auditctl', args, { encoding: 'utf8' });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}` };
}

function status(): AuditStatus | null {
  return parseAuditStatus(auditctl(['-s']).out);
}

/**
 * Debian's auditd started by the bench as its child (`auditd -n`, its own config and log in the
 * bench folder), with rules for the ebpf engines' system calls loaded for each audited run and
 * removed after it. Audit rules and settings are host-wide: the state found at the start (rules,
 * enabled flag, backlog, failure mode, rate limit) is put back by close(), or closeSync() from a
 * signal handler.
 */
export class AuditPeer {
  private restored = false;

  private constructor(
    private readonly daemon: ChildProcess,
    private readonly before: AuditStatus,
    private readonly beforeRules: string[],
    private readonly rules: string[],
    private readonly logFile: string,
    private readonly auid: number,
    private readonly targetName: string,
  ) {}

  /**
   * Starts auditd in `dir`; a string says why the audit peer cannot run here. `targetName` is the
   * file whose opens each run counts (the open loop's target, as its path records name it).
   */
  static async start(dir: string, targetName: string): Promise<AuditPeer | string> {
    const probe = spawnSync('auditd', ['-h'], { encoding: 'utf8' });
    if (probe.error) return 'auditd is not installed (apt-get install -y auditd)';
    const before = status();
    if (!before) return `auditctl -s did not answer: ${auditctl(['-s']).out.trim().slice(0, 200)}`;
    if (before.enabled === 2) return 'the audit configuration is locked (enabled 2) until reboot';
    if (before.pid !== 0 && alive(before.pid))
      return `an audit daemon (pid ${before.pid}) already runs; stop it to measure the peer the bench starts`;
    const tables = {
      b64: parseSyscallTable(spawnSync('ausyscall', ['x86_64', '--dump'], { encoding: 'utf8' }).stdout ?? ''),
      b32: parseSyscallTable(spawnSync('ausyscall', ['i386', '--dump'], { encoding: 'utf8' }).stdout ?? ''),
    };
    if (tables.b64.size === 0) return 'ausyscall gave no x86_64 syscall table (audit needs x86_64 here)';
    const auid = 900_000 + (process.pid % 100_000);
    const rules = auditRules(tables, auid);
    const beforeRules = parseRuleList(auditctl(['-l']).out);

    mkdirSync(path.join(dir, 'plugins.d'), { recursive: true });
    const logFile = path.join(dir, 'audit.log');
    writeFileSync(path.join(dir, 'auditd.conf'), auditdConf(logFile, path.join(dir, 'plugins.d')), {
      mode: 0o600,
    });
    const out = openSync(path.join(dir, 'auditd.out'), 'w');
    const daemon = spawn('auditd', ['-n', '-s', 'nochange', '-c', dir], { stdio: ['ignore', out, out] });
    closeSync(out);
    const peer = new AuditPeer(daemon, before, beforeRules, rules, logFile, auid, targetName);
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (status()?.pid === daemon.pid) break;
      if (daemon.exitCode !== null || Date.now() > deadline) {
        await peer.close();
        return `auditd did not take the audit socket (see ${path.join(dir, 'auditd.out')})`;
      }
      await sleep(20);
    }
    const set = auditctl(PEER_SETTINGS);
    if (!set.ok) {
      await peer.close();
      return `auditctl ${PEER_SETTINGS.join(' ')} failed: ${set.out.trim().slice(0, 200)}`;
    }
    return peer;
  }

  /** Processes whose CPU time is the recorder's: auditd and the kernel's kauditd thread. */
  cpuPids(): number[] {
    const kauditd = spawnSync('pgrep', ['-x', 'kauditd'], { encoding: 'utf8' }).stdout?.trim().split('\n')[0];
    return [this.daemon.pid ?? 0, Number(kauditd) || 0].filter((p) => p > 0);
  }

  tracer(): BenchTracer {
    return { start: (ctx) => this.session(ctx), cpuPids: () => this.cpuPids() };
  }

  private async session(ctx: TracerContext): Promise<BenchSession> {
    const offset = statSync(this.logFile, { throwIfNoEntry: false })?.size ?? 0;
    const lost0 = status()?.lost ?? 0;
    for (const rule of this.rules) {
      const added = auditctl(['-a', ...rule.split(' ')]);
      if (!added.ok) throw new Error(`auditctl -a ${rule} failed: ${added.out.trim().slice(0, 300)}`);
    }
    const enabled = auditctl(['-e', '1']);
    if (!enabled.ok) {
      this.removeRules();
      throw new Error(`auditctl -e 1 failed: ${enabled.out.trim().slice(0, 300)}`);
    }
    const auid = this.auid;
    return {
      wrap: (spec: SpawnSpec): SpawnSpec => ({
        ...spec,
        // The login uid is inherited by every descendant; the rules match on it.
        argv: ['/bin/sh', '-c', `echo ${auid} > /proc/self/loginuid && exec "$@"`, 'sh', ...spec.argv],
      }),
      stop: async (): Promise<BenchOutput> => {
        const warnings = this.removeRules();
        const marker = endMarker(ctx.run_id);
        // User messages are dropped while auditing is off: mark the end before switching it back.
        auditctl(['-m', marker]);
        const counter = new AuditLogCounter(this.targetName, marker);
        const drained = await follow(this.logFile, offset, counter);
        auditctl(['-e', String(this.before.enabled)]);
        const lost = (status()?.lost ?? lost0) - lost0;
        if (!drained) warnings.push(`auditd did not write the run's end within ${DRAIN_TIMEOUT_MS / 1000} s`);
        // Only the counts are kept; the log of a 100,000-open run is ~100 MB (auditd appends, so this is safe).
        truncateSync(this.logFile, 0);
        return { events: counter.syscalls, target_opens: counter.targetOpens, lost, warnings };
      },
    };
  }

  private removeRules(): string[] {
    const warnings: string[] = [];
    for (const rule of this.rules) {
      const removed = auditctl(['-d', ...rule.split(' ')]);
      if (!removed.ok) warnings.push(`auditctl -d failed: ${removed.out.trim().slice(0, 200)}`);
    }
    return warnings;
  }

  /** Puts the host's audit state back as found and stops auditd; synchronous, for signal handlers. */
  closeSync(): void {
    if (this.restored) return;
    this.restored = true;
    this.removeRules();
    const now = parseRuleList(auditctl(['-l']).out);
    if (now.join('\n') !== this.beforeRules.join('\n')) {
      // Someone else's rules changed meanwhile, or ours would not go: back to the state found.
      auditctl(['-D']);
      for (const rule of this.beforeRules) auditctl(rule.split(' '));
    }
    const b = this.before;
    auditctl(['-b', String(b.backlog_limit), '--backlog_wait_time', String(b.backlog_wait_time)]);
    auditctl(['-f', String(b.failure), '-r', String(b.rate_limit)]);
    auditctl(['-e', String(b.enabled)]);
    if (this.daemon.exitCode === null) this.daemon.kill('SIGTERM');
  }

  async close(): Promise<void> {
    this.closeSync();
    if (this.daemon.exitCode !== null || this.daemon.signalCode !== null) return;
    const exited = new Promise((resolve) => this.daemon.once('exit', resolve));
    const timeout = sleep(5000).then(() => this.daemon.kill('SIGKILL'));
    await Promise.race([exited, timeout]);
  }
}

/** Reads the log from `offset` as auditd appends to it, until the counter sees its end marker. */
async function follow(file: string, offset: number, counter: AuditLogCounter): Promise<boolean> {
  const fd = openSync(file, 'r');
  const chunk = Buffer.alloc(1 << 20);
  let position = offset;
  let partial = '';
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  try {
    while (!counter.sawMarker) {
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n === 0) {
        if (Date.now() > deadline) return false;
        await sleep(10);
        continue;
      }
      position += n;
      const lines = (partial + chunk.toString('utf8', 0, n)).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) counter.line(line);
    }
    return true;
  } finally {
    closeSync(fd);
  }
}

function auditdConf(logFile: string, pluginDir: string): string {
  // Debian's shipped auditd.conf, but logging into the bench folder without rotation (a rotation
  // mid-run would hide records from the count) and with no network listener or plugins.
  return `${[
    'local_events = yes',
    'write_logs = yes',
    `log_file = ${logFile}`,
    'log_format = ENRICHED',
    'flush = INCREMENTAL_ASYNC',
    'freq = 50',
    'max_log_file = 0',
    'max_log_file_action = IGNORE',
    'num_logs = 0',
    'priority_boost = 4',
    'name_format = NONE',
    'space_left = 75',
    'space_left_action = SYSLOG',
    'admin_space_left = 50',
    'admin_space_left_action = SUSPEND',
    'disk_full_action = SUSPEND',
    'disk_error_action = SUSPEND',
    'q_depth = 2000',
    'overflow_action = SYSLOG',
    'max_restarts = 10',
    `plugin_dir = ${pluginDir}`,
    'end_of_event_timeout = 2',
  ].join('\n')}\n`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
