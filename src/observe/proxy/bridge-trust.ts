import { randomBytes, timingSafeEqual } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import type { NetworkClient } from '../../evidence/types.js';
import { keyFileFor, type Preamble, readPreamble } from './bridge-protocol.js';
import { hostPidOf, sandboxHostPids } from './host-pid.js';
import { exeOf, holdsSocketOnPort } from './socket-owner.js';

type TrustState =
  | { kind: 'waiting' }
  /** `onHost`: the bridge's pid namespace has processes on this host (not so for a bridge inside a VM). */
  | { kind: 'ready'; secret: string; pidNamespace: string; onHost: boolean }
  | { kind: 'broken'; reason: string };

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** What a relayed stream turned out to be: the bridge's introduction, or a client's connection. */
export type Accepted = { kind: 'hello' } | { kind: 'client'; client: NetworkClient; rest: Buffer };

/**
 * The harness's half of the bridge protocol (bridge-protocol.ts) for one Unix socket: hands out
 * the bootstrap key, accepts the one introduction, and turns each relayed stream's header into the
 * `client` of its records — with the host pid the tracer knows, or `pid: null` and why.
 */
export class BridgeTrust {
  readonly #keyFile: string;
  readonly #key = randomBytes(24).toString('hex');
  #state: TrustState = { kind: 'waiting' };

  constructor(socketPath: string) {
    this.#keyFile = keyFileFor(socketPath);
  }

  /** Writes the key file (only the harness's user may read it; the agent finds it gone). */
  async start(): Promise<void> {
    await writeFile(this.#keyFile, this.#key, { mode: 0o600 });
  }

  async stop(): Promise<void> {
    await rm(this.#keyFile, { force: true });
  }

  /** Reads a fresh stream's header; answers an introduction itself. The socket is left paused. */
  async accept(socket: Socket): Promise<Accepted> {
    const { preamble, rest } = await readPreamble(socket);
    if (preamble.kind === 'hello') {
      const secret = await this.#hello(preamble.key, preamble.pidNamespace);
      socket.end(secret === undefined ? 'REFUSED\n' : `OK ${secret}\n`);
      return { kind: 'hello' };
    }
    return { kind: 'client', client: await this.#attribute(preamble), rest };
  }

  async #hello(key: string, pidNamespace: string): Promise<string | undefined> {
    await rm(this.#keyFile, { force: true });
    if (this.#state.kind !== 'waiting' || !sameSecret(key, this.#key)) {
      // Either someone else introduced itself first with a key it read, or it guessed: from now
      // on no header can be told from a forgery.
      this.#state = {
        kind: 'broken',
        reason:
          this.#state.kind === 'waiting'
            ? 'a bridge introduced itself with a wrong key; client headers are not trusted'
            : 'the bridge key was used twice (another process had read it); client headers are not trusted',
      };
      return undefined;
    }
    const secret = randomBytes(24).toString('hex');
    // The bridge is alive in its namespace while it introduces itself: on this kernel, the host
    // sees it; inside a VM (microvm) the namespace is the guest's and no host process has it.
    this.#state = { kind: 'ready', secret, pidNamespace, onHost: sandboxHostPids(pidNamespace).length > 0 };
    return secret;
  }

  async #attribute(preamble: Exclude<Preamble, { kind: 'hello' }>): Promise<NetworkClient> {
    if (preamble.kind === 'none')
      return { pid: null, reason: 'the connection did not come through the sandbox bridge' };
    if (preamble.kind === 'malformed') return { pid: null, reason: preamble.reason };
    const state = this.#state;
    if (state.kind === 'broken') return { pid: null, reason: state.reason };
    if (state.kind === 'waiting' || !sameSecret(preamble.secret, state.secret))
      return { pid: null, reason: 'client header without the bridge secret (not from the bridge)' };
    const id = preamble.identity;
    if (id.pid === null) return { pid: null, reason: id.reason, port: id.port };
    const exe = id.exe === undefined ? {} : { exe: id.exe };
    if (!state.onHost)
      return {
        pid: null,
        reason: `the client runs on another kernel (inside a VM): its process ${id.pid} has no host pid to check`,
        ns_pid: id.pid,
        port: id.port,
        ...exe,
      };
    const host = hostPidOf(state.pidNamespace, id.pid, id.start);
    // The secret lives in the bridge's memory, which a process of the same user could read. So the
    // claim is checked against the kernel too: a forged header can only name a process that does
    // hold a socket on that port, not pin the request on any process it likes.
    if (host === undefined || !holdsSocketOnPort(host, id.port)) {
      // The process the bridge named may be gone or have let the socket go since: a child caught
      // between fork and exec holds its parent's sockets for a moment, then execs or exits. The
      // kernel can still say which of the sandbox's processes holds the socket now.
      const holder = sandboxHostPids(state.pidNamespace).find((pid) => holdsSocketOnPort(pid, id.port));
      if (holder !== undefined) {
        const holderExe = exeOf(holder, '/proc');
        return { pid: holder, port: id.port, ...(holderExe === undefined ? {} : { exe: holderExe }) };
      }
      return {
        pid: null,
        reason:
          host === undefined
            ? `sandbox process ${id.pid} exited before its host pid was read`
            : `the bridge header names process ${id.pid}, which holds no socket on port ${id.port}`,
        ns_pid: id.pid,
        port: id.port,
        ...exe,
      };
    }
    return { pid: host, ns_pid: id.pid, port: id.port, ...exe };
  }
}
