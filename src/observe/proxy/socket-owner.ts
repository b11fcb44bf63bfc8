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

// `sl local_address rem_address st … uid timeout inode`: the inode when this line is the socket.
function inodeOfLine(line: string, localPort: number, remotePort: number | undefined): number | undefined {
  const cols = line.trim().split(/\s+/);
  if (portOf(cols[1]) !== localPort) return undefined;
  if (remotePort !== undefined && portOf(cols[2]) !== remotePort) return undefined;
  const inode = Number(cols[9]);
  return Number.isInteger(inode) && inode > 0 ? inode : undefined;
}

/**
 * The inode of the socket in a `/proc/net/{tcp,udp}{,6}` table whose local port is `localPort`
 * (and, when given, whose remote port is `remotePort`). Inode 0 (a socket in TIME_WAIT, no owner)
 * never matches.
 */
export function inodeInTable(table: string, localPort: number, remotePort?: number): number | undefined {
  for (const line of table.split('\n').slice(1)) {
    const inode = inodeOfLine(line, localPort, remotePort);
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
function inodeInFile(path: string, localPort: number, remotePort: number | undefined): number | undefined {
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
      if (n === 0) return carry === '' ? undefined : inodeOfLine(carry, localPort, remotePort);
      const lines = (carry + chunk.toString('latin1', 0, n)).split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) {
        if (header) {
          header = false;
          continue;
        }
        const inode = inodeOfLine(line, localPort, remotePort);
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
): number | undefined {
  for (const table of [proto, `${proto}6`]) {
    const inode = inodeInFile(`${proc}/net/${table}`, localPort, remotePort);
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
  const wanted = `socket:[${inode}]`;
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return undefined;
  }
  const pids = entries
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== skip)
    .sort((a, b) => b - a);
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`${proc}/${pid}/fd`);
    } catch {
      continue; // exited, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`${proc}/${pid}/fd/${fd}`) === wanted) return pid;
      } catch {
        // closed between readdir and readlink
      }
    }
  }
  return undefined;
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

function exeOf(pid: number, proc: string): string | undefined {
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
