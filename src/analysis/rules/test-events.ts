/**
 * Hand-made event streams for rule tests (imported only from tests). A `Trace` numbers events and
 * remembers each pid's exe, so a test reads like the workload it stands for:
 *
 *   const t = new Trace();
 *   t.exec(2, 1, '/usr/bin/cat', ['cat', '/root/.ssh/id_rsa']);
 *   t.open(2, '/root/.ssh/id_rsa');
 */
import type { NetworkRecord, SocketAddress, SysEvent } from '../../evidence/types.js';
import type { RuleContext } from './types.js';

export const WS = '/work/ws';
export const HOME = '/root';

export const CTX: RuleContext = {
  workspace: WS,
  home: HOME,
  canaries: ['/root/.ssh/id_rsa', '/root/.aws/credentials', '/root/.env', '/root/.npmrc'],
  allowedHosts: ['registry.npmjs.org', '*.pythonhosted.org', 'api.example.com:443'],
  stateDirs: ['/root/.codex'],
  // api.example.com is also allowed: a vendor host the allow list names is no alert.
  vendorHosts: ['api.openai.com', '*.githubcopilot.com', 'api.example.com'],
  bindsRecorded: true,
};

export class Trace {
  readonly events: SysEvent[] = [];
  readonly records: NetworkRecord[] = [];
  #seq = 1;
  #ts = 0;
  readonly #exe = new Map<number, string>();
  readonly #ppid = new Map<number, number>();

  /** `rootEnv`: the root's recorded environment (as the collector and strace record it); none by default. */
  constructor(rootEnv?: string[]) {
    // The agent's root process: pid 1 under the harness (ppid 0), a shell in the workspace.
    this.exec(1, 0, '/usr/bin/sh', ['sh', '-c', 'agent'], { cwd: WS, ...(rootEnv ? { env: rootEnv } : {}) });
  }

  #push(pid: number, e: Omit<SysEvent, 'seq' | 'ts' | 'pid' | 'ppid' | 'exe'>, exe?: string): SysEvent {
    this.#ts += 1;
    const event: SysEvent = {
      seq: this.#seq++,
      ts: this.#ts,
      pid,
      ppid: this.#ppid.get(pid) ?? 1,
      exe: exe ?? this.#exe.get(pid) ?? '/usr/bin/sh',
      ...e,
    };
    this.events.push(event);
    return event;
  }

  fork(parent: number, child: number): this {
    this.#ppid.set(child, parent);
    this.#exe.set(child, this.#exe.get(parent) ?? '/usr/bin/sh');
    this.#push(child, { kind: 'fork', syscall: 'clone', result: child }, this.#exe.get(parent));
    return this;
  }

  /** fork from `ppid` (unless pid is already known) and exec `path`. */
  exec(
    pid: number,
    ppid: number,
    path: string,
    argv: string[],
    opts: { cwd?: string; result?: number; env?: string[]; interpreter?: string } = {},
  ): this {
    if (!this.#ppid.has(pid)) {
      this.#ppid.set(pid, ppid);
      if (ppid > 0) this.fork(ppid, pid);
    }
    const result = opts.result ?? 0;
    this.#push(
      pid,
      {
        kind: 'exec',
        syscall: 'execve',
        path,
        argv,
        cwd: opts.cwd ?? WS,
        result,
        ...(opts.env ? { env: opts.env } : {}),
        ...(opts.interpreter ? { interpreter: opts.interpreter } : {}),
      },
      result >= 0 ? path : undefined,
    );
    if (result >= 0) this.#exe.set(pid, path);
    return this;
  }

  open(pid: number, path: string, access: 'read' | 'write' | 'create' = 'read', result = 3): this {
    this.#push(pid, { kind: 'open', syscall: 'openat', path, access, result });
    return this;
  }

  meta(pid: number, syscall: string, path: string, path2?: string, result = 0): this {
    this.#push(pid, { kind: 'write-meta', syscall, path, ...(path2 === undefined ? {} : { path2 }), result });
    return this;
  }

  connect(pid: number, addr: SocketAddress, result = 0): this {
    this.#push(pid, { kind: 'connect', syscall: 'connect', addr, result });
    return this;
  }

  bind(pid: number, addr: SocketAddress, result = 0): this {
    this.#push(pid, { kind: 'other', syscall: 'bind', addr, result });
    return this;
  }

  priv(pid: number, syscall: string, result = 0, path?: string): this {
    this.#push(pid, { kind: 'privilege', syscall, result, ...(path === undefined ? {} : { path }) });
    return this;
  }

  /** Any other event, as a tracer would record it (`ia32:open`, `io_uring:OPENAT`, `memfd_create`). */
  event(pid: number, e: Omit<SysEvent, 'seq' | 'ts' | 'pid' | 'ppid' | 'exe'>): this {
    this.#push(pid, e);
    return this;
  }

  exit(pid: number, code = 0): this {
    this.#push(pid, { kind: 'exit', syscall: 'exit', result: code });
    return this;
  }

  /** A proxy or DNS record at the current time. */
  record(r: Partial<NetworkRecord> & { host: string }): this {
    this.records.push({
      ts: this.#ts + 0.5,
      port: 443,
      protocol: 'connect',
      decision: 'allowed',
      reason: 'test',
      ...r,
    });
    return this;
  }
}
