import type { NetworkRecord, ProtectedChange, SysEvent } from '../../evidence/types.js';
import { BoundPorts } from './bound-ports.js';
import { canonicalEvent } from './canonical-path.js';
import { DEFAULT_HARNESS_ENDPOINTS, placeholderValues } from './compile.js';
import { type Compiled, compiledRules, indexKey } from './compiled-rules.js';
import { Downloads } from './downloads.js';
import { KnownFiles } from './file-identity.js';
import { FINAL_STATE, FileState, type WriteRecord } from './file-state.js';
import { Frame } from './frame.js';
import { ProcessTable, type ProcInfo } from './process-table.js';
import { programOf } from './program.js';
import type { Alert, Matcher, RuleContext, RuleSet } from './types.js';

const NO_RULES: readonly Compiled[] = [];
/**
 * The rules a change found in the final state is judged by: what a file IS after the agent is
 * persistence or integrity; a burst (threshold) is about time, which the final state does not have.
 */
const FINAL_STATE_CLASSES = new Set(['persistence', 'integrity']);
const CHANGED: Record<ProtectedChange['change'], string> = {
  created: 'was created',
  removed: 'was removed',
  content: 'was rewritten',
  mode: 'changed mode',
  link: 'was pointed elsewhere',
  type: 'changed type',
};

function endpointOf(e: SysEvent): string | undefined {
  const a = e.addr;
  if (!a || (a.family !== 'inet' && a.family !== 'inet6') || a.ip === undefined) return undefined;
  return a.family === 'inet6' ? `[${a.ip}]:${a.port}` : `${a.ip}:${a.port}`;
}

/**
 * A streaming matcher for one run. It keeps the process table (for chains), the files the run
 * wrote (for "created then executed"), and the last client of the proxy and DNS bridge (to name
 * the process behind a proxy record that does not name its own client). Rules are indexed by
 * event kind and compiled to closures.
 */
export function createMatcher(
  ruleset: RuleSet,
  ctx: RuleContext,
  /** Binds known ahead (the batch form knows the whole run); live matching learns them as they come. */
  ports: BoundPorts = new BoundPorts(ctx.bindsRecorded === true),
): Matcher {
  const values = placeholderValues(ctx);
  const byKey = compiledRules(ruleset, values);
  const endpoints = ctx.harnessEndpoints ?? DEFAULT_HARNESS_ENDPOINTS;
  const dnsEndpoints = new Set(endpoints.filter((e) => e.endsWith(':53')));
  const proxyEndpoints = new Set(endpoints.filter((e) => !e.endsWith(':53')));
  const workspace = values.WORKSPACE?.[0] ?? ctx.workspace;

  // What a package manager installed is not a preload the run planted (vitest's workers run
  // `node --require node_modules/vitest/suppress-warnings.cjs` after an install).
  const installers = new Set(ruleset.lists?.get('package_managers') ?? []);
  const procs = new ProcessTable(workspace, installers, values.HOME?.[0] ?? ctx.home);
  const files = new FileState();
  const downloads = new Downloads(
    procs,
    files,
    installers,
    ctx.vendorHosts ?? [],
    ctx.stdioCopiesUnrecorded !== true,
  );
  const known = new KnownFiles(ctx.knownFiles);
  const frame = new Frame(procs, files, ports, downloads, ctx.runUser);
  const seen = new Map<string, Alert>();
  // Threshold rules: the times of their recent matches, oldest first.
  const bursts = new Map<string, number[]>();
  // Returned when nothing fired (frozen: one shared array, so nobody may add to it).
  const none = Object.freeze([]) as unknown as Alert[];
  const order: Alert[] = [];
  let proxyClient: ProcInfo | undefined;
  let dnsClient: ProcInfo | undefined;

  // A client the tracer has not (yet) shown: named by what the bridge saw, its own chain's only link.
  const standalone = (pid: number, exe: string | undefined): ProcInfo => {
    const info = programOf(exe ?? 'unknown', [], undefined);
    const program = files.resolve(info.program);
    const base = { ppid: 0, exe: exe ?? 'unknown', argv: [], argvText: '', cwd: undefined };
    return { pid, ...base, name: info.name, program, net: true, loadedWritten: [] };
  };

  /** The process behind a proxy or DNS record. */
  const clientOf = (r: NetworkRecord): ProcInfo | undefined => {
    const client = r.client;
    // Runs without the bridge's attribution (older runs, loopback proxy): the last process that
    // connected to the proxy or DNS endpoint is the best there is.
    if (client === undefined) return r.protocol === 'dns' ? dnsClient : proxyClient;
    // Identification failed: name what is known, never another process.
    if (client.pid === null) return client.exe === undefined ? undefined : standalone(0, client.exe);
    return procs.get(client.pid) ?? standalone(client.pid, client.exe);
  };

  // The program a process runs, as `/proc/<pid>/exe` names it (the kernel's, where recorded).
  const exeOf = (pid: number): string | undefined => {
    const p = procs.get(pid);
    return p?.interpreter ?? p?.exe;
  };

  const resource = (): string => frame.target ?? frame.dest ?? frame.host ?? frame.sys?.syscall ?? '';

  const raise = (
    candidates: readonly Compiled[],
    base: { syscall: string; seq: number; ts: number },
    where: () => { path?: string; path_as_written?: string; host?: string; port?: number },
  ): Alert[] => {
    let out: Alert[] | undefined;
    for (const c of candidates) {
      if (!c.test(frame)) continue;
      const proc = frame.proc;
      const threshold = c.rule.threshold;
      // A threshold rule is one alert per run, raised by the event that completes the burst.
      const key = threshold
        ? `${c.rule.id}\u0000burst`
        : `${c.rule.id}\u0000${proc?.pid ?? 0}\u0000${resource()}`;
      const existing = seen.get(key);
      if (existing) {
        existing.count++;
        continue;
      }
      let count = 1;
      if (threshold) {
        const times = bursts.get(c.rule.id) ?? [];
        times.push(base.ts);
        while ((times[0] as number) < base.ts - threshold.withinMs) times.shift();
        bursts.set(c.rule.id, times);
        if (times.length < threshold.count) continue;
        count = times.length;
      }
      const alert: Alert = {
        rule: c.rule.id,
        class: c.rule.class,
        severity: c.rule.severity,
        description: c.rule.description,
        message: c.render(frame),
        syscall: base.syscall,
        ...where(),
        seq: base.seq,
        ts: base.ts,
        count,
        process: proc
          ? { pid: proc.pid, exe: proc.exe, argv: [...proc.argv], chain: procs.chain(proc) }
          : { pid: 0, exe: 'unknown', argv: [], chain: [] },
      };
      seen.set(key, alert);
      order.push(alert);
      if (out === undefined) out = [alert];
      else out.push(alert);
    }
    return out ?? none;
  };

  const sysWhere = (): { path?: string; path_as_written?: string; host?: string; port?: number } => {
    const e = frame.sys;
    const target = frame.target;
    const written = e?.path_as_written;
    if (target !== undefined)
      return written === undefined || written === target
        ? { path: target }
        : { path: target, path_as_written: written };
    if (e?.addr?.family === 'unix') return e.addr.path === undefined ? {} : { path: e.addr.path };
    const host = frame.host;
    const port = e?.addr?.port;
    return { ...(host === undefined ? {} : { host }), ...(port === undefined ? {} : { port }) };
  };

  return {
    onEvent(raw) {
      const e = known.name(canonicalEvent(raw, (pid) => procs.get(pid)?.cwd, exeOf));
      const before = e.kind === 'exec' ? procs.get(e.pid) : undefined;
      const proc = procs.observe(e, files);
      const code = downloads.observe(e, proc, before);
      if (e.kind === 'connect') {
        const ep = endpointOf(e);
        if (ep !== undefined && dnsEndpoints.has(ep)) dnsClient = proc;
        else if (ep !== undefined && proxyEndpoints.has(ep)) proxyClient = proc;
      }
      const candidates = byKey.get(e.kind === 'open' ? indexKey('open', e.access) : e.kind) ?? NO_RULES;
      let out = none;
      if (candidates.length > 0) {
        frame.reset(e.kind, proc);
        frame.sys = e;
        frame.code = code;
        out = raise(candidates, e, sysWhere);
      }
      files.observe(e);
      ports.observe(e);
      known.observe(e);
      return out;
    },
    learn(raw) {
      const e = known.name(canonicalEvent(raw, (pid) => procs.get(pid)?.cwd, exeOf));
      const before = e.kind === 'exec' ? procs.get(e.pid) : undefined;
      downloads.observe(e, procs.observe(e, files), before);
      files.observe(e);
      known.observe(e);
    },
    onRecord(r) {
      const client = clientOf(r);
      downloads.observeRecord(r, client);
      frame.reset('net', client);
      frame.net = r;
      const syscall = r.protocol === 'dns' ? 'dns' : `proxy-${r.protocol}`;
      return raise(byKey.get('net') ?? NO_RULES, { syscall, seq: -1, ts: r.ts }, () => ({
        host: r.host,
        port: r.port,
      }));
    },
    onPatch(findings) {
      const out: Alert[] = [];
      for (const finding of findings) {
        const path = `${workspace}/${finding.file}`;
        const w: WriteRecord | undefined = files.writerOf(path);
        frame.reset('patch', w ? procs.get(w.pid) : undefined);
        frame.patch = finding;
        frame.patchPath = path;
        const base = w ? { syscall: w.syscall, seq: w.seq, ts: w.ts } : { syscall: 'diff', seq: -1, ts: -1 };
        out.push(...raise(byKey.get('patch') ?? NO_RULES, base, () => ({ path })));
      }
      return out;
    },
    onFinalState(changes) {
      const out: Alert[] = [];
      const rules = (byKey.get('write-meta') ?? NO_RULES).filter(
        (c) => FINAL_STATE_CLASSES.has(c.rule.class) && c.rule.threshold === undefined,
      );
      for (const change of changes) {
        const w = files.lastChangeOf(change.path);
        const proc = w ? procs.get(w.pid) : undefined;
        frame.reset('write-meta', proc);
        frame.sys = {
          seq: w?.seq ?? -1,
          ts: w?.ts ?? -1,
          pid: proc?.pid ?? 0,
          ppid: proc?.ppid ?? 0,
          exe: proc?.exe ?? 'unknown',
          kind: 'write-meta',
          syscall: FINAL_STATE,
          path: change.path,
          result: 0,
        };
        // A call the trace placed at this path already raised the rule: the final state adds nothing.
        const fresh = rules.filter((c) => !order.some((a) => a.rule === c.rule.id && a.path === change.path));
        const base = { syscall: FINAL_STATE, seq: w?.seq ?? -1, ts: w?.ts ?? -1 };
        for (const alert of raise(fresh, base, () => ({ path: change.path }))) {
          alert.final_state = `${change.change}: ${change.detail}`;
          // Without a call to name, the rule's template has no process to speak of.
          alert.message = proc
            ? `${alert.message}; found in the final state (${alert.final_state}), last changed by this process's ${w?.syscall}`
            : `${change.path} ${CHANGED[change.change]} (${change.detail}): found in the final state, by no call the trace placed at this path`;
          out.push(alert);
        }
      }
      return out;
    },
    alerts: () => [...order],
  };
}
