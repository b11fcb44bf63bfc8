/**
 * The one line the sandbox bridge puts in front of each stream it relays to a harness socket,
 * naming the process that opened the connection. Node built-ins only and no project imports: the
 * sandbox bridge imports it from dist/.
 *
 * The agent can connect to the harness's sockets itself (they are bound into the sandbox), so a
 * header is believed only with a secret the agent never saw: at start the harness writes a key
 * file beside its socket; before it starts the agent, the bridge reads the key and trades it once
 * (`HELLO`) for a session secret that exists only in the bridge's memory and the harness's, and
 * the harness deletes the file. A second `HELLO` means someone else had the key; the harness then
 * believes no header at all. The secret is only as private as the bridge's memory, which a process
 * of the same user may read, so the harness also checks each claim against the kernel: the named
 * process must hold a socket on the claimed port (bridge-trust.ts).
 *
 *   AGENTGUARD-HELLO/1 <key> <pid namespace, e.g. pid:[4026532290]>\n   →   OK <secret>\n
 *   AGENTGUARD-CLIENT/1 <secret> <ClientIdentity as JSON>\n<the client's bytes…>
 */
import type { Socket } from 'node:net';
import type { ClientIdentity } from './socket-owner.js';

const HELLO_TAG = 'AGENTGUARD-HELLO/1';
const CLIENT_TAG = 'AGENTGUARD-CLIENT/1';
const COMMON_PREFIX = Buffer.from('AGENTGUARD-');
/** Longer than any header the bridge writes (an exe path is at most 4096 bytes, but JSON-escaped). */
export const MAX_PREAMBLE_BYTES = 16_384;

/** Where the harness leaves the bootstrap key for the bridge that relays to `socketPath`. */
export function keyFileFor(socketPath: string): string {
  return `${socketPath}.key`;
}

export function helloLine(key: string, pidNamespace: string): string {
  return `${HELLO_TAG} ${key} ${pidNamespace}\n`;
}

export function clientLine(secret: string, identity: ClientIdentity): string {
  return `${CLIENT_TAG} ${secret} ${JSON.stringify(identity)}\n`;
}

export type Preamble =
  | { kind: 'hello'; key: string; pidNamespace: string }
  | { kind: 'client'; secret: string; identity: ClientIdentity }
  /** The stream starts with the client's own bytes: it did not come through the bridge. */
  | { kind: 'none' }
  | { kind: 'malformed'; reason: string };

function isIdentity(value: unknown): value is ClientIdentity {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (typeof v.port !== 'number') return false;
  if (v.pid === null) return typeof v.reason === 'string';
  return (
    typeof v.pid === 'number' &&
    Number.isInteger(v.pid) &&
    v.pid > 0 &&
    (v.start === undefined || typeof v.start === 'number') &&
    (v.exe === undefined || typeof v.exe === 'string')
  );
}

export function parsePreambleLine(line: string): Preamble {
  const [tag, first, ...rest] = line.split(' ');
  const tail = rest.join(' ');
  if (tag === HELLO_TAG && first && tail) return { kind: 'hello', key: first, pidNamespace: tail };
  if (tag === CLIENT_TAG && first && tail) {
    try {
      const identity: unknown = JSON.parse(tail);
      if (isIdentity(identity)) return { kind: 'client', secret: first, identity };
    } catch {
      // falls through to malformed
    }
  }
  return { kind: 'malformed', reason: `unrecognised bridge header '${line.slice(0, 40)}'` };
}

/**
 * Reads the bridge's header line off a fresh stream, if it has one. Resolves with the header and
 * the bytes after it (which the caller must put back with `socket.unshift`); the socket is left
 * paused. A stream that does not start with the header's prefix is the client's own.
 */
export function readPreamble(socket: Socket): Promise<{ preamble: Preamble; rest: Buffer }> {
  return new Promise((resolve) => {
    let buffer = Buffer.alloc(0);
    let settled = false;
    const done = (preamble: Preamble, rest: Buffer) => {
      if (settled) return;
      settled = true;
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      socket.pause();
      resolve({ preamble, rest });
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const prefix = Math.min(buffer.length, COMMON_PREFIX.length);
      if (!buffer.subarray(0, prefix).equals(COMMON_PREFIX.subarray(0, prefix)))
        return done({ kind: 'none' }, buffer);
      const newline = buffer.indexOf(0x0a);
      if (newline >= 0) {
        return done(
          parsePreambleLine(buffer.subarray(0, newline).toString('utf8')),
          buffer.subarray(newline + 1),
        );
      }
      if (buffer.length > MAX_PREAMBLE_BYTES)
        done({ kind: 'malformed', reason: 'bridge header too long' }, Buffer.alloc(0));
    };
    const onEnd = () =>
      done(
        buffer.length === 0
          ? { kind: 'none' }
          : { kind: 'malformed', reason: 'stream ended in the bridge header' },
        buffer,
      );
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
    socket.resume();
  });
}

/** Exit code when the bridge itself cannot start (like `env` and container runtimes use 125). */
export const BRIDGE_SETUP_FAILED = 125;

/** The environment variable that hands the bridge its setup token (see sandbox-bridge.ts `fail`). */
export const SETUP_TOKEN_VARIABLE = 'AGENTGUARD_BRIDGE_SETUP_TOKEN';

/** The bridge's own setup failure in an agent command's stderr, proven by the token; null if none. */
export function bridgeSetupFailure(stderr: string, token: string): string | null {
  const mark = ` [setup ${token}]`;
  for (const line of stderr.split('\n')) {
    if (line.startsWith('agentguard-bridge: ') && line.endsWith(mark))
      return line.slice('agentguard-bridge: '.length, line.length - mark.length);
  }
  return null;
}
