import type { SysEvent } from '../../evidence/types.js';

const ECONNREFUSED = 111;

/**
 * The inet ports the run's own processes bound, so that a loopback connect to one of them counts as
 * the run talking to itself (a test suite and its server) rather than reaching a service the run did
 * not start. Fed every event in order, like the process table.
 */
export class BoundPorts {
  readonly #ports = new Set<number>();

  /** `recorded` false: the tracer did not record binds, so any port may be the run's own. */
  constructor(private readonly recorded = true) {}

  /** The run bound a port the kernel chose (port 0): its number is not in the evidence. */
  #ephemeral = false;

  observe(e: SysEvent): void {
    if (e.syscall !== 'bind' || (e.result ?? 0) < 0) return;
    const a = e.addr;
    if (!a || (a.family !== 'inet' && a.family !== 'inet6') || a.port === undefined) return;
    if (a.port === 0) this.#ephemeral = true;
    else this.#ports.add(a.port);
  }

  /**
   * Whether a connect may have reached a server of the run: its port was bound by the run, or the
   * run holds a port the kernel chose and the connect was not refused (a non-blocking connect's
   * result says nothing: EINPROGRESS either way).
   */
  listened(e: SysEvent): boolean {
    if (!this.recorded) return true;
    const port = e.addr?.port;
    if (port !== undefined && this.#ports.has(port)) return true;
    return this.#ephemeral && e.result !== -ECONNREFUSED;
  }
}
