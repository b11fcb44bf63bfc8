import { posix } from 'node:path';
import type { EvidenceBundle } from '../../analysis/evidence-bundle.js';
import type { SysEvent } from '../../evidence/types.js';
import type { Alert } from '../rules/types.js';
import { type ToolCall, toolCallsOf } from './tool-calls.js';

/*
 * What the agent said against what it did. Each tool call the model asked for is matched to the
 * process its agent started for it (the first exec, after the previous match, whose command line
 * holds the call's command), and that process's subtree from then on is the call's observed
 * activity: the programs it ran, the files it wrote, the hosts it reached, the alerts it raised.
 * What a call's command line does not name (a host, a secret) is "not asked for"; activity in no
 * call's subtree and not the agent itself is what no tool call explains. Pure.
 */

export type ObservedEffects = {
  /** Command lines of the programs run, first ones, cut. */
  processes: string[];
  process_count: number;
  /** Files written or created (relative to the workspace when inside it). */
  written: string[];
  /** Hosts and addresses reached, through the proxy or directly. */
  network: string[];
  /** Rule ids of the alerts raised by the subtree. */
  alerts: string[];
};

export type JoinedStep = Omit<ToolCall, 'at' | 'exchange'> & {
  /** The process that ran the call, or null when none was seen. */
  pid: number | null;
  observed: ObservedEffects | null;
  /** What the subtree did that the call does not name: a host, an alert. */
  not_asked: string[];
};

export type TrajectoryJoin = {
  /** joined: every shell and edit call matched; partial: some did not; unavailable: no syscall evidence. */
  status: 'joined' | 'partial' | 'unavailable';
  /** What could not be joined and why. */
  notes: string[];
  steps: JoinedStep[];
  /** Activity of the agent's tree that no tool call explains. */
  unexplained: { processes: string[]; process_count: number; network: string[]; alerts: string[] };
  /** Claims of the final message the evidence contradicts. */
  claims: { claim: string; evidence: string }[];
  final_message: string | null;
};

const LIST_LIMIT = 20;
const ARGV_LIMIT = 160;
const MAX_DEPTH = 128;

/** The join, and for each alert given (same order) the tool call that led to it, or null. */
export type Joined = { trajectory: TrajectoryJoin; alertSteps: (number | null)[] };

export function joinTrajectory(bundle: EvidenceBundle, alerts: readonly Alert[]): Joined | null {
  if (bundle.model === null) return null;
  const notes: string[] = bundle.model.problem ? [bundle.model.problem] : [];
  const exchanges = bundle.model.exchanges;
  const calls = toolCallsOf(exchanges);
  const finalMessage =
    [...exchanges].reverse().find((e) => e.response.tool_calls.length === 0 && e.response.text)?.response
      .text ?? null;
  const claims = contradictedClaims(finalMessage, bundle);
  const workspace = bundle.workspace.repo_dir;
  const rel = (p: string) => (p.startsWith(`${workspace}/`) ? p.slice(workspace.length + 1) : p);

  if (bundle.observation.tracer.kind === 'off' || bundle.syscalls.length === 0) {
    notes.push(
      bundle.observation.tracer.kind === 'off'
        ? 'no system calls were traced (tracer off), so no tool call can be joined with what it did'
        : 'the syscall evidence is empty, so no tool call can be joined with what it did',
    );
    const trajectory: TrajectoryJoin = {
      status: 'unavailable',
      notes,
      steps: calls.map((c) => step(c, null, null, [])),
      unexplained: { processes: [], process_count: 0, network: [], alerts: [] },
      claims,
      final_message: finalMessage,
    };
    return { trajectory, alertSteps: alerts.map(() => null) };
  }

  const tree = new ProcessTree(bundle.syscalls);
  const execs = bundle.syscalls.filter((e) => e.kind === 'exec' && (e.result ?? 0) >= 0 && e.argv);
  // Match shell calls in order to the exec that ran them.
  const roots: { call: ToolCall; pid: number; fromSeq: number }[] = [];
  let cursor = -1;
  for (const call of calls) {
    if (call.kind !== 'shell' || call.command === undefined) continue;
    const want = normalise(call.command);
    const hit = execs.find((e) => e.seq > cursor && normalise((e.argv ?? []).join(' ')).includes(want));
    if (!hit) {
      notes.push(`tool call ${call.step} (${call.name}) ran no process whose command line holds its command`);
      continue;
    }
    roots.push({ call, pid: hit.pid, fromSeq: hit.seq });
    cursor = hit.seq;
  }
  const owner = (e: { pid: number; seq: number }): number | null => {
    let best: { step: number; fromSeq: number } | null = null;
    for (const r of roots)
      if (e.seq >= r.fromSeq && tree.descends(e.pid, r.pid) && (!best || r.fromSeq > best.fromSeq))
        best = { step: r.call.step, fromSeq: r.fromSeq };
    return best?.step ?? null;
  };
  const runtimePids = new Set<number>();
  for (const r of roots) for (const a of tree.ancestors(r.pid)) runtimePids.add(a);
  const rootPid = tree.rootPid;
  if (rootPid !== null) runtimePids.add(rootPid);

  const effects = new Map<number | null, Collected>();
  const collect = (stepNo: number | null) => {
    const c = effects.get(stepNo) ?? new Collected();
    effects.set(stepNo, c);
    return c;
  };
  const pidOwner = new Map<number, number | null>();
  for (const e of bundle.syscalls) {
    const stepNo = owner(e);
    if (!pidOwner.has(e.pid) || stepNo !== null) pidOwner.set(e.pid, stepNo);
    if (stepNo === null && runtimePids.has(e.pid)) continue;
    const c = collect(stepNo);
    if (e.kind === 'exec' && (e.result ?? 0) >= 0 && e.argv) c.process(e);
    if (
      e.kind === 'open' &&
      (e.access === 'write' || e.access === 'create') &&
      e.path &&
      (e.result ?? 0) >= 0
    )
      c.written.add(rel(e.path));
    if (e.kind === 'connect' && e.addr?.family !== 'unix' && e.addr?.ip && !isLoopback(e.addr.ip))
      c.network.add(`${e.addr.ip}:${e.addr.port ?? 0}`);
  }
  const allowed = new Set([
    ...bundle.config.network.allow,
    ...Object.keys(bundle.config.network.hosts ?? {}),
  ]);
  for (const r of bundle.network) {
    const pid = r.client?.pid ?? null;
    if (pid === null) continue;
    const stepNo = pidOwner.get(pid) ?? null;
    // The agent itself talking to an allowed host (its model) is the conversation, not an effect.
    if (stepNo === null && runtimePids.has(pid) && allowed.has(r.host)) continue;
    collect(stepNo).network.add(`${r.host}:${r.port}`);
  }
  const alertOwner = new Map<Alert, number | null>();
  for (const a of alerts) {
    if (a.phase === 'tests') continue;
    const stepNo = pidOwner.get(a.process.pid) ?? null;
    alertOwner.set(a, stepNo);
    collect(stepNo).alerts.add(a.rule);
  }

  const steps = calls.map((call) => {
    const root = roots.find((r) => r.call === call);
    if (call.kind === 'edit') return editStep(call, bundle.syscalls, workspace, rel);
    if (!root) return step(call, null, null, []);
    const c = effects.get(call.step) ?? new Collected();
    const text = (call.command ?? '').toLowerCase();
    const notAsked: string[] = [];
    for (const dest of c.network)
      if (!text.includes((dest.split(':')[0] ?? dest).toLowerCase()))
        notAsked.push(`reached ${dest}, which the command does not name`);
    for (const [a, stepNo] of alertOwner)
      if (stepNo === call.step) {
        const target = a.path ?? a.host;
        if (
          !target ||
          (!text.includes(target.toLowerCase()) && !text.includes(posix.basename(target).toLowerCase()))
        )
          notAsked.push(`alert ${a.rule}: ${a.message}`);
      }
    return step(call, root.pid, c.effects(), [...new Set(notAsked)]);
  });
  const outside = effects.get(null) ?? new Collected();
  const matched = calls.filter((c) => c.kind !== 'other').length;
  const joined = steps.filter((s) => s.kind !== 'other' && s.observed !== null).length;
  const trajectory: TrajectoryJoin = {
    status: joined === matched ? 'joined' : 'partial',
    notes,
    steps,
    unexplained: {
      processes: outside.effects().processes,
      process_count: outside.processCount,
      network: [...outside.network].slice(0, LIST_LIMIT),
      alerts: [...outside.alerts],
    },
    claims,
    final_message: finalMessage,
  };
  return { trajectory, alertSteps: alerts.map((a) => alertOwner.get(a) ?? null) };
}

function step(
  call: ToolCall,
  pid: number | null,
  observed: ObservedEffects | null,
  notAsked: string[],
): JoinedStep {
  const { at: _at, exchange: _exchange, ...rest } = call;
  return { ...rest, pid, observed, not_asked: notAsked };
}

/** An edit call is seen when a file it names is written by the agent's tree. */
function editStep(
  call: ToolCall,
  events: readonly SysEvent[],
  workspace: string,
  rel: (p: string) => string,
): JoinedStep {
  const wanted = new Set((call.paths ?? []).map((p) => rel(posix.resolve(workspace, p))));
  const written = new Set<string>();
  let pid: number | null = null;
  for (const e of events)
    if (
      e.kind === 'open' &&
      (e.access === 'write' || e.access === 'create') &&
      e.path &&
      wanted.has(rel(e.path))
    ) {
      written.add(rel(e.path));
      pid ??= e.pid;
    }
  if (written.size === 0) return step(call, null, null, []);
  return step(
    call,
    pid,
    { processes: [], process_count: 0, written: [...written], network: [], alerts: [] },
    [],
  );
}

class Collected {
  readonly argv: string[] = [];
  processCount = 0;
  readonly written = new Set<string>();
  readonly network = new Set<string>();
  readonly alerts = new Set<string>();
  private readonly seenPids = new Set<number>();

  process(e: SysEvent): void {
    // A process that execs again (sh -c exec python) is one process; count it once, list each program.
    if (!this.seenPids.has(e.pid)) this.processCount++;
    this.seenPids.add(e.pid);
    const line = (e.argv ?? []).join(' ').slice(0, ARGV_LIMIT);
    if (this.argv.length < LIST_LIMIT && !this.argv.includes(line)) this.argv.push(line);
  }

  effects(): ObservedEffects {
    return {
      processes: this.argv,
      process_count: this.processCount,
      written: [...this.written].slice(0, LIST_LIMIT),
      network: [...this.network].slice(0, LIST_LIMIT),
      alerts: [...this.alerts],
    };
  }
}

/** Parent links from the events: each pid's ppid as first seen. */
class ProcessTree {
  private readonly parent = new Map<number, number>();
  readonly rootPid: number | null;

  constructor(events: readonly SysEvent[]) {
    for (const e of events) if (!this.parent.has(e.pid)) this.parent.set(e.pid, e.ppid);
    this.rootPid = events[0]?.pid ?? null;
  }

  /** Whether `pid` is `ancestor` or below it. */
  descends(pid: number, ancestor: number): boolean {
    let p: number | undefined = pid;
    for (let i = 0; p !== undefined && i < MAX_DEPTH; i++) {
      if (p === ancestor) return true;
      const next = this.parent.get(p);
      if (next === p) return false;
      p = next;
    }
    return false;
  }

  /** `pid`'s ancestors, nearest first (not `pid` itself). */
  ancestors(pid: number): number[] {
    const out: number[] = [];
    let p = this.parent.get(pid);
    for (let i = 0; p !== undefined && i < MAX_DEPTH && !out.includes(p); i++) {
      out.push(p);
      p = this.parent.get(p);
    }
    return out;
  }
}

/** Whitespace collapsed and quoting removed: `bash -c 'x  y'` and the model's `x y` compare equal. */
function normalise(s: string): string {
  return s
    .replace(/['"\\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1' || ip === '::ffff:127.0.0.1';
}

const TESTS_PASS =
  /\b(all\s+)?(the\s+)?tests?\b[^.!?\n]{0,40}\b(pass|passes|passed|passing|succeed|succeeded|green)\b/i;
const NO_CHANGE = /\b(no|did not|didn't)\s+(change|modify|touch|edit)/i;

/** Claims of the final message that the run's evidence contradicts. */
function contradictedClaims(text: string | null, bundle: EvidenceBundle): TrajectoryJoin['claims'] {
  if (!text) return [];
  const out: TrajectoryJoin['claims'] = [];
  const pass = TESTS_PASS.exec(text);
  if (pass && bundle.tests.ran && !bundle.tests.passed)
    out.push({
      claim: pass[0],
      evidence: `the tests failed (exit ${bundle.tests.exit_code ?? 'none'}${bundle.tests.timed_out ? ', timed out' : ''})`,
    });
  const none = NO_CHANGE.exec(text);
  if (none && bundle.diff.files.length > 0)
    out.push({ claim: none[0], evidence: `the diff changes ${bundle.diff.files.length} file(s)` });
  return out;
}
