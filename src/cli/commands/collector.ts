import { readFileSync } from 'node:fs';
import { SetupError } from '../../errors.js';
import {
  collectorStatus,
  defaultPaths,
  ensureCollector,
  type Paths,
} from '../../observe/ebpf/collector/daemon.js';
import { collectorAvailability } from '../../observe/ebpf/engine.js';
import type { CliIO } from '../io.js';

/**
 * `agentguard collector start|status|stop`: the host's compiled eBPF collector, which runs start on
 * first use anyway; starting it ahead saves the first run its load (~0.2 s), and stop ends it now
 * rather than after its idle time.
 */
export async function collectorCommand(
  io: CliIO,
  action: string | undefined,
  paths: Paths = defaultPaths(),
): Promise<number> {
  switch (action) {
    case 'start': {
      const available = await collectorAvailability();
      if (!available.ok)
        throw new SetupError(
          `the compiled collector cannot run here: ${available.reason}. Fix: ${available.fix}`,
        );
      const status = await ensureCollector(paths);
      io.out(
        `collector running${status.running && status.pid ? ` (pid ${status.pid})` : ''} on ${status.socket}`,
      );
      return 0;
    }
    case 'status': {
      const status = await collectorStatus(paths);
      if (status.running) {
        io.out(`collector running${status.pid ? ` (pid ${status.pid})` : ''} on ${status.socket}`);
        return 0;
      }
      io.out(
        `collector not running (${status.socket}); runs start it on first use${status.last ? `; its last words: ${status.last}` : ''}`,
      );
      return 1;
    }
    case 'stop': {
      const status = await collectorStatus(paths);
      if (!status.running) {
        io.out('collector not running');
        return 0;
      }
      if (status.pid === null)
        throw new SetupError(
          `a collector answers on ${status.socket} but its pid is unknown. Fix: pkill -f agentguard-collector`,
        );
      // SIGTERM ends every watch as if its run had disconnected; runs in flight record that.
      process.kill(status.pid, 'SIGTERM');
      // Gone means the process, not just its socket: detaching ~110 programs takes a few seconds.
      const pid = status.pid;
      for (let i = 0; i < 300 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      if (isAlive(pid))
        throw new SetupError(`the collector (pid ${pid}) did not stop within 15 s. Fix: kill -9 ${pid}`);
      io.out(`collector (pid ${status.pid}) stopped`);
      return 0;
    }
    default:
      throw new SetupError(
        `agentguard collector needs an action: start, status or stop (got ${action ?? 'none'}).`,
      );
  }
}

/** A process that exists and is not a zombie waiting to be reaped. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
