/**
 * Which process holds a local TCP or UDP socket, read from /proc (Linux): the socket tables give
 * the inode of the socket bound to a port, and a process's `fd/` links name `socket:[inode]`.
 * Node built-ins only and no project imports: the sandbox bridge imports it from dist/.
 */
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs';

/** What the bridge learnt about one client, in the sandbox's PID namespace. */
export type ClientIdentity =
  | { pid: number; port: number; start?: number; exe?: string }
  | { pid: null; port: number; reason: string };

type Proto = 'tcp' | 'udp';

// `0100007F:1F90` → 8080; the address half is ignored: the bridge only serves loopback.
function portOf(field: string | undefined): number | undefined {
  const at = field?.lastIndexOf(':') ?? -1;
  if (field === undefined || at < 0) return undefined;
  const port = Number.parseInt(field.slice(at + 1), 16);
  return Number.isNaN(port) ? undefined : port;
}

/** Which socket a table line must be: its local port, and optionally its remote port or inode. */
type Wanted = { localPort: number; remotePort?: number | undefined; among?: ReadonlySet<number> };

// `sl local_address rem_address st … uid timeout inode`: the inode when this line is the socket.
function inodeOfLine(line: string, want: Wanted): number | undefined {
  const cols = line.trim().split(/\s+/);
  if (portOf(cols[1]) !== want.localPort) return undefined;
  if (want.remotePort !== undefined && portOf(cols[2]) !== want.remotePort) return undefined;
  const inode = Number(cols[9]);
  if (want.among !== undefined && !want.among.has(inode)) return undefined;
  return Number.isInteger(inode) && inode > 0 ? inode : undefined;
}

/**
 * The inode of the socket in a `/proc/net/{tcp,udp}{,6}` table whose local port is `localPort`
 * (and, when given, whose remote port is `remotePort`). Inode 0 (a socket in TIME_WAIT, no owner)
 * never matches.
 */
export function inodeInTable(table: string, localPort: number, remotePort?: number): number | undefined {
  for (const line of table.split('\n').slice(1)) {
    const inode = inodeOfLine(line, { localPort, remotePort });
    if (inode !== undefined) return inode;
  }
  return undefined;
}

const chunk = Buffer.alloc(64 * 1024);

/**
 * `inodeInTable` over a /proc file read a page at a time, stopping at the match: each read() of a
 * socket table walks the kernel's hash from the start (about 1.5 ms here whatever the table's
 * size), and the reads come one page at a time, so a sandbox's short table costs one read, not
 * the two (data, then end of file) of reading it whole.
 */
function inodeInFile(path: string, want: Wanted): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let carry = '';
    let header = true;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return carry === '' ? undefined : inodeOfLine(carry, want);
      const lines = (carry + chunk.toString('latin1', 0, n)).split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) {
        if (header) {
          header = false;
          continue;
        }
        const inode = inodeOfLine(line, want);
        if (inode !== undefined) return inode;
      }
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The inode of this network namespace's socket with that local (and remote) port, v4 or v6. */
export function findSocketInode(
  proto: Proto,
  localPort: number,
  remotePort?: number,
  proc = '/proc',
  among?: ReadonlySet<number>,
): number | undefined {
  for (const table of [proto, `${proto}6`]) {
    const inode = inodeInFile(`${proc}/net/${table}`, { localPort, remotePort, ...(among ? { among } : {}) });
    if (inode !== undefined) return inode;
  }
  return undefined;
}

/**
 * The process holding `socket:[inode]` open. Newest pids are tried first: the client of a fresh
 * connection is usually a recently started helper, and a socket inherited across fork() is then
 * blamed on the child that went on to use it rather than on the parent. `skip` is the caller.
 */
export function findSocketOwner(inode: number, proc = '/proc', skip = process.pid): number | undefined {
  for (const pid of procPids(proc)) if (pid !== skip && socketInodes(pid, proc).has(inode)) return pid;
  return undefined;
}

/** The inodes of the sockets a process holds open. */
function socketInodes(pid: number, proc: string): Set<number> {
  const inodes = new Set<number>();
  let fds: string[];
  try {
    fds = readdirSync(`${proc}/${pid}/fd`);
  } catch {
    return inodes; // exited, or not ours to read
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`${proc}/${pid}/fd/${fd}`));
      if (match) inodes.add(Number(match[1]));
    } catch {
      // closed between readdir and readlink
    }
  }
  return inodes;
}

/**
 * Whether process `pid` holds a TCP or UDP socket bound to `localPort` in its own network
 * namespace (read through `/proc/PID/net/`, so it works from outside the sandbox too).
 */
export function holdsSocketOnPort(pid: number, localPort: number, proc = '/proc'): boolean {
  const held = socketInodes(pid, proc);
  if (held.size === 0) return false;
  return (['tcp', 'udp'] as const).some(
    (proto) => findSocketInode(proto, localPort, undefined, `${proc}/${pid}`, held) !== undefined,
  );
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Start time in clock ticks after boot (field 22 of stat): with the pid, it names one process. */
export function processStart(pid: number, proc = '/proc'): number | undefined {
  const stat = readOr(`${proc}/${pid}/stat`);
  // comm (field 2) may hold spaces and parentheses; the fields after it follow the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(rest[19]);
  return stat === '' || !Number.isInteger(start) ? undefined : start;
}

export function exeOf(pid: number, proc: string): string | undefined {
  try {
    return readlinkSync(`${proc}/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/**
 * The process behind a connection accepted on `serverPort` from local port `clientPort` (TCP), or
 * behind a datagram from `clientPort` (UDP, `serverPort` undefined). Call it at accept time: a
 * client that exits (or closes its socket) first cannot be found, and then the answer says so.
 */
export function identifyClient(
  proto: Proto,
  clientPort: number,
  serverPort?: number,
  proc = '/proc',
): ClientIdentity {
  if (clientPort === 0)
    return { pid: null, port: 0, reason: 'the client had closed the connection before it was accepted' };
  const inode = findSocketInode(proto, clientPort, serverPort, proc);
  if (inode === undefined) {
    return { pid: null, port: clientPort, reason: `no ${proto} socket on port ${clientPort} any more` };
  }
  const pid = findSocketOwner(inode, proc);
  if (pid === undefined) {
    return { pid: null, port: clientPort, reason: `no process holds socket ${inode} any more` };
  }
  const start = processStart(pid, proc);
  const exe = exeOf(pid, proc);
  return {
    pid,
    port: clientPort,
    ...(start === undefined ? {} : { start }),
    ...(exe === undefined ? {} : { exe }),
  };
}

/** The pids under a procfs mount, newest (highest) first; none when it cannot be read. */
export function procPids(proc = '/proc'): number[] {
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return [];
  }
  return entries
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => b - a);
}
