import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { buildRuleContext, type ContextInput } from '../analysis/rules/context.js';
import { createMatcher } from '../analysis/rules/matcher.js';
import type { Alert, Matcher, RuleSet } from '../analysis/rules/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { GuardEnforcement } from '../evidence/bundle-types.js';
import { CANARY_PREFIX, createRedactor, type KnownSecret, type Redactor } from '../evidence/redact.js';
import type { NetworkRecord, SysEvent } from '../evidence/types.js';
import { writeJson } from '../evidence/write.js';
import { AgentScope } from '../observe/scope-events.js';

export type GuardMode = 'off' | 'audit' | 'enforce';
export const GUARD_MODES: readonly GuardMode[] = ['off', 'audit', 'enforce'];

export type LiveAlert = {
  alert: Alert;
  /** Milliseconds since the window opened when the alert was printed. */
  detected_ms: number;
  /** From the matching call to the printed alert. */
  latency_ms: number;
};

export type Incident = {
  run_id: string;
  mode: GuardMode;
  stopped: boolean;
  first_critical: LiveAlert | null;
  alerts: LiveAlert[];
};

/**
 * Runs the security rules on events as the tracer and proxy deliver them. `audit` prints each alert
 * as it happens; `enforce` also stops the agent's process group on the first critical alert. The
 * final verdict still comes from the batch analysis of the stored evidence: the guard only acts
 * early and records when it noticed.
 */
export class LiveGuard {
  readonly alerts: LiveAlert[] = [];
  private matcher: Matcher;
  /** Kills the agent's process group; false when nothing of it was left to kill. */
  private stopAgent: (() => boolean) | null = null;
  private stopped = false;
  private agentExitedAt: number | null = null;
  private stopRequest: { at: number; live: LiveAlert; alive: boolean } | null = null;
  private firstCritical: LiveAlert | null = null;

  constructor(
    readonly mode: Exclude<GuardMode, 'off'>,
    rules: RuleSet,
    opts: {
      cfg: ResolvedConfig;
      workspace: string;
      home: string;
      /** The canaries, with the identity (dev, ino) seeding recorded: a read by any name is theirs. */
      canaries: { kind: string; path: string; token: string; dev?: number; ino?: number }[];
      t0: number;
      /** The agent vendor's own hosts (its profile's vendor_hosts), as the batch analysis has them. */
      vendorHosts?: readonly string[];
      /** The run's user when the sandbox runs every command as it (observation's run_user). */
      runUser?: { uid: number; gid: number };
      /**
       * guard/alerts.jsonl: each alert appended as it is raised, so a reader (`agentguard view`)
       * sees it during the run rather than in incident.json at the end.
       */
      alertsFile?: string;
    },
    private readonly log: (line: string) => void,
  ) {
    this.t0 = opts.t0;
    this.alertsFile = opts.alertsFile ?? null;
    this.tokens = opts.canaries.map((c) => ({
      name: `${CANARY_PREFIX}${c.kind}`,
      value: c.token,
      hashed: true,
    }));
    this.redactor = createRedactor({ secrets: this.tokens });
    this.rules = rules;
    this.contextInput = {
      workspace: opts.workspace,
      home: opts.home,
      canaryPaths: opts.canaries.map((c) => c.path),
      canaryFiles: opts.canaries,
      allow: opts.cfg.network.allow,
      hostsMap: opts.cfg.network.hosts,
      stateDirs: opts.cfg.security.state_dirs,
      ...(opts.vendorHosts ? { vendorHosts: opts.vendorHosts } : {}),
      ...(opts.runUser ? { runUser: `${opts.runUser.uid}:${opts.runUser.gid}` } : {}),
      // No bindsRecorded: loopback ports are judged in the batch, which knows every bind of the
      // run (a client's first try may precede its server's bind) and the advisory proxy's port.
    };
    this.matcher = createMatcher(rules, buildRuleContext(this.contextInput));
  }

  private readonly rules: RuleSet;
  private readonly contextInput: ContextInput;

  /**
   * The protected files recorded before the agent (protected-state.ts), by identity: a write that
   * reaches one by another name (a hard link, a descriptor, a bind) is its rule's alert here too, as
   * in the batch analysis. Given before the agent starts; the matcher has seen no event yet.
   */
  knowProtected(files: readonly { path: string; dev: number; ino: number }[]): void {
    if (this.scope !== null) return; // the agent's events are being judged: too late to change the context
    this.matcher = createMatcher(
      this.rules,
      buildRuleContext({ ...this.contextInput, protectedFiles: files }),
    );
  }

  private readonly t0: number;
  private readonly tokens: KnownSecret[];
  private readonly alertsFile: string | null;
  private readonly redactor: Redactor;

  /** Set once the agent is running: how to stop its whole process group. */
  armed(stop: () => boolean): void {
    this.stopAgent = stop;
  }

  /** The agent has exited: an alert from now on can no longer stop it, and the report says so. */
  disarm(at = Date.now()): void {
    this.stopAgent = null;
    this.agentExitedAt ??= at;
  }

  /** The tracer's time zero (its events' ts count from when it was ready), as wall-clock ms. */
  eventClockZero: number | null = null;
  private scope: AgentScope | null = null;

  /** Only the agent's own process tree is judged, as in the batch analysis. */
  watch(agentArgv: readonly string[]): void {
    this.scope = new AgentScope(agentArgv);
  }

  onEvent = (event: SysEvent): void => {
    const scoped = this.scope?.accept(event);
    if (scoped) this.handle(this.matcher.onEvent(scoped), this.eventClockZero ?? this.t0);
  };

  onRecord = (record: NetworkRecord): void => {
    this.handle(this.matcher.onRecord(record), this.t0);
  };

  private handle(raised: Alert[], clockZero: number): void {
    for (const alert of raised) {
      const now = Date.now();
      const live: LiveAlert = {
        alert,
        detected_ms: now - this.t0,
        latency_ms: Math.max(0, Math.round(now - clockZero - alert.ts)),
      };
      this.alerts.push(live);
      this.append(live);
      const where = alert.path ?? (alert.host ? `${alert.host}${alert.port ? `:${alert.port}` : ''}` : '');
      this.log(
        `guard: ${alert.severity} ${alert.rule} — ${alert.syscall} ${where} by ${alert.process.exe} (pid ${alert.process.pid}), ` +
          `detected ${live.latency_ms} ms after the call`,
      );
      if (alert.severity === 'critical' && !this.firstCritical) {
        this.firstCritical = live;
        if (this.mode === 'enforce') this.enforce(live, now);
      }
    }
  }

  private enforce(live: LiveAlert, now: number): void {
    const rule = live.alert.rule;
    if (this.stopAgent) {
      const alive = this.stopAgent();
      this.stopAgent = null;
      this.stopped = alive;
      this.stopRequest = { at: now, live, alive };
      this.log(
        alive
          ? `guard: enforce — stopping the agent after critical alert ${rule}`
          : `guard: enforce — critical alert ${rule}: the agent's processes had already exited, nothing to stop`,
      );
    } else if (this.agentExitedAt !== null) {
      this.log(
        `guard: enforce — critical alert ${rule} came ${now - this.agentExitedAt} ms after the agent had exited: too late to stop it`,
      );
    }
  }

  /** What enforcement did, once the agent's end is known (`exitedAt`: when its process was seen to exit). */
  enforcement(exitedAt: number | null): GuardEnforcement | null {
    const first = this.firstCritical;
    if (this.mode !== 'enforce' || first === null) return null;
    const base = { rule: first.alert.rule, alert_latency_ms: first.latency_ms };
    const alertAt = this.t0 + first.detected_ms;
    const request = this.stopRequest;
    if (request?.alive) {
      return {
        ...base,
        outcome: 'stopped',
        stopped_after_ms: exitedAt === null ? null : Math.max(0, exitedAt - request.at),
      };
    }
    const exited = this.agentExitedAt ?? exitedAt ?? alertAt;
    return { ...base, outcome: 'already-exited', exited_before_ms: Math.max(0, alertAt - exited) };
  }

  /** One redacted JSON line per alert; a failed write loses the live copy only (incident.json still has it). */
  private append(live: LiveAlert): void {
    if (this.alertsFile === null) return;
    try {
      mkdirSync(path.dirname(this.alertsFile), { recursive: true });
      const line = JSON.stringify(this.redactor.value(live));
      appendFileSync(this.alertsFile, `${line}\n`);
    } catch (err) {
      this.log(
        `warning: cannot append to ${this.alertsFile}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  get stoppedAgent(): boolean {
    return this.stopped;
  }

  incident(runId: string): Incident {
    return {
      run_id: runId,
      mode: this.mode,
      stopped: this.stopped,
      first_critical: this.firstCritical,
      alerts: this.alerts,
    };
  }

  /** guard/incident.json when anything fired. Alerts carry paths and hosts, never file contents or tokens. */
  writeIncident(file: string, runId: string): boolean {
    if (this.alerts.length === 0) return false;
    writeJson(file, this.incident(runId), createRedactor({ secrets: this.tokens }));
    return true;
  }
}
