import { createServer as createHttpParser, type Server as HttpParser } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { ConfigError, InternalError } from '../../errors.js';
import type { NetworkClient, NetworkRecord } from '../../evidence/types.js';
import { parseAllowList } from './allow-list.js';
import { BridgeTrust } from './bridge-trust.js';
import { tunnelConnect } from './connect-tunnel.js';
import { type EgressMode, EgressPolicy } from './egress-policy.js';
import { type HostsMap, parseHostsMap } from './hosts-map.js';
import { forwardHttp } from './http-forward.js';
import type { OutboundScan } from './leak-scan.js';
import { closeServer, listenTcp, listenUnix, removeSocketFile } from './listen.js';
import { clockFromNow, type RecordListener, RecordLog } from './record-log.js';
import { rawResponse, refusal } from './refusal.js';
import { identifyClient } from './socket-owner.js';
import { serveSocks5 } from './socks5.js';
import { forwardUpgrade } from './upgrade-forward.js';
import type { ProxyContext } from './upstream.js';

/** Options of the harness-owned egress proxy. */
export type EgressProxyOptions = {
  /** The task's allow list: `example.com`, `*.example.com`, `example.com:8443`, `10.0.0.5`, `*`. */
  allow?: readonly string[];
  /** Names redirected to local addresses (fake external hosts); the allow list still judges the name. */
  hosts?: HostsMap;
  /**
   * Internal destinations the operator lets through (the host policy's network_hosts): a name that
   * resolves to a loopback, private or link-local address is refused at connect time otherwise.
   */
  internalAllowed?: readonly string[];
  /** `allowlist` refuses what the list does not allow; `observe` lets everything through and records it. */
  mode?: EgressMode;
  /** Unix socket to listen on (what the sandbox bridge connects to). */
  unixPath?: string;
  /** Also listen on 127.0.0.1 at this port (0 picks a free one), for `local` runs and tests. */
  tcpPort?: number;
  /** Called once per request as soon as its decision is final (the live guard). Must not throw. */
  onRecord?: RecordListener;
  /** Milliseconds since the observation window opened; defaults to time since start(). */
  clock?: () => number;
  /** Client connections open at once (both listeners); further ones are closed unanswered. Default 256. */
  maxConnections?: number;
  /** Largest request head accepted, in bytes. Default 16 KiB. */
  maxHeaderBytes?: number;
  /** Upstream connect timeout. Default 15 s. */
  connectTimeoutMs?: number;
  /** Time a client may take to send its first request or SOCKS handshake. Default 30 s. */
  handshakeTimeoutMs?: number;
  /** The run's canaries and secret detectors over what leaves (target, headers, bodies, tunnels, hosts). */
  outbound?: OutboundScan;
};

export type EgressProxyAddress = { unixPath?: string; tcpPort?: number };

/**
 * HTTP forward proxy, HTTPS `CONNECT` tunnels and SOCKS5 on one port: the first byte of a
 * connection says which (0x05 is SOCKS5, anything else is parsed as HTTP). Every request yields one
 * NetworkRecord; `stop()` closes everything and returns them in arrival order.
 */
export class EgressProxy {
  readonly #options: EgressProxyOptions;
  readonly #policy: EgressPolicy;
  readonly #clients = new Set<Socket>();
  readonly #sockets = new Set<Socket>();
  readonly #servers: Server[] = [];
  #log: RecordLog | undefined;
  #parser: HttpParser | undefined;
  #address: EgressProxyAddress | undefined;
  #stopped: NetworkRecord[] | undefined;
  // Each connection's handlers record under its own client (the HTTP parser is shared).
  readonly #contexts = new WeakMap<Socket, ProxyContext>();
  #trust: BridgeTrust | undefined;
  #stopping = false;
  #unixBound = false;
  #refusedConnections = 0;

  constructor(options: EgressProxyOptions) {
    const allow = parseAllowList(options.allow ?? []);
    const hosts = parseHostsMap(options.hosts ?? {});
    const issues = [...allow.issues, ...hosts.issues];
    if (issues.length > 0) throw new ConfigError(`network allow list / hosts: ${issues.join('; ')}`);
    if (options.unixPath === undefined && options.tcpPort === undefined) {
      throw new InternalError('EgressProxy needs a unixPath, a tcpPort or both');
    }
    this.#options = options;
    this.#policy = new EgressPolicy(
      allow.entries,
      hosts.map,
      options.mode ?? 'allowlist',
      options.internalAllowed ?? [],
    );
  }

  /** Where the proxy listens, once started. */
  get address(): EgressProxyAddress | undefined {
    return this.#address;
  }

  /** Connections closed unanswered because `maxConnections` were already open. */
  get refusedConnections(): number {
    return this.#refusedConnections;
  }

  async start(): Promise<EgressProxyAddress> {
    if (this.#log !== undefined) throw new InternalError('EgressProxy.start() called twice');
    const log = new RecordLog(
      this.#options.clock ?? clockFromNow(),
      this.#options.onRecord,
      this.#options.outbound,
    );
    this.#log = log;
    const ctx: ProxyContext = {
      policy: this.#policy,
      log,
      track: (socket) => this.#track(socket),
      connectTimeoutMs: this.#options.connectTimeoutMs ?? 15_000,
      ...(this.#options.outbound ? { outbound: this.#options.outbound } : {}),
    };
    this.#parser = this.#createParser(ctx);
    const address: EgressProxyAddress = {};
    try {
      if (this.#options.unixPath !== undefined) {
        // Only the sandbox bridge relays through the Unix socket, and it names each connection's process.
        this.#trust = new BridgeTrust(this.#options.unixPath);
        const server = this.#createListener(ctx, log, this.#trust);
        this.#servers.push(server);
        await listenUnix(server, this.#options.unixPath);
        this.#unixBound = true;
        await this.#trust.start();
        address.unixPath = this.#options.unixPath;
      }
      if (this.#options.tcpPort !== undefined) {
        const server = this.#createListener(ctx, log);
        this.#servers.push(server);
        address.tcpPort = await listenTcp(server, this.#options.tcpPort);
      }
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.#address = address;
    return address;
  }

  /** Closes listeners and every socket, removes the Unix socket file, returns all records. Idempotent. */
  async stop(): Promise<NetworkRecord[]> {
    if (this.#stopped !== undefined) return this.#stopped;
    this.#stopping = true;
    const closing = this.#servers.map((server) => closeServer(server));
    for (const socket of this.#sockets) socket.destroy();
    await Promise.all(closing);
    if (this.#unixBound && this.#options.unixPath !== undefined)
      await removeSocketFile(this.#options.unixPath);
    await this.#trust?.stop();
    this.#stopped = this.#log?.drain() ?? [];
    return this.#stopped;
  }

  #track(socket: Socket): void {
    // An upstream connect that was still resolving when stop() ran must not outlive the proxy.
    if (this.#stopping) {
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  #createParser(ctx: ProxyContext): HttpParser {
    // Node's HTTP parser on sockets we hand it; it never listens itself. Host headers are optional
    // because absolute-URI requests name their host.
    const parser = createHttpParser({
      maxHeaderSize: this.#options.maxHeaderBytes ?? 16_384,
      requireHostHeader: false,
    });
    const of = (socket: Socket) => this.#contexts.get(socket) ?? ctx;
    parser.on('request', (req, res) => {
      req.socket.setTimeout(0);
      void forwardHttp(of(req.socket), req, res).catch(() => req.socket.destroy());
    });
    parser.on('connect', (req, socket: Socket, head: Buffer) => {
      socket.setTimeout(0);
      void tunnelConnect(of(socket), req, socket, head).catch(() => socket.destroy());
    });
    parser.on('upgrade', (req, socket: Socket, head: Buffer) => {
      socket.setTimeout(0);
      void forwardUpgrade(of(socket), req, socket, head).catch(() => socket.destroy());
    });
    parser.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      const reason = `malformed HTTP request (${err.code ?? err.message})`;
      of(socket).log.note({ host: '', port: 0, protocol: 'http', decision: 'denied', reason });
      socket.end(rawResponse(refusal(err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400, reason)));
    });
    return parser;
  }

  #createListener(ctx: ProxyContext, log: RecordLog, trust?: BridgeTrust): Server {
    const max = this.#options.maxConnections ?? 256;
    const handshakeMs = this.#options.handshakeTimeoutMs ?? 30_000;
    return createServer({ allowHalfOpen: true }, (socket) => {
      if (this.#clients.size >= max) {
        this.#refusedConnections += 1;
        socket.destroy();
        return;
      }
      this.#clients.add(socket);
      socket.once('close', () => this.#clients.delete(socket));
      this.#track(socket);
      socket.on('error', () => socket.destroy());
      socket.setTimeout(handshakeMs, () => socket.destroy());
      if (trust === undefined) {
        const client = loopbackClient(socket);
        return this.#serve(socket, client ? { ...ctx, log: log.forClient(client) } : ctx);
      }
      trust.accept(socket).then(
        (accepted) => {
          if (accepted.kind === 'hello') return;
          if (accepted.rest.length > 0) socket.unshift(accepted.rest);
          this.#serve(socket, { ...ctx, log: log.forClient(accepted.client) });
        },
        () => socket.destroy(),
      );
    });
  }

  #serve(socket: Socket, ctx: ProxyContext): void {
    this.#contexts.set(socket, ctx);
    socket.once('data', (first: Buffer) => {
      socket.pause();
      if (first[0] === 0x05) {
        void serveSocks5(ctx, socket, first).catch(() => socket.destroy());
      } else if (first[0] === 0x04) {
        ctx.log.note({
          host: '',
          port: 0,
          protocol: 'socks',
          decision: 'denied',
          reason: 'SOCKS4 is not supported',
        });
        socket.end(Buffer.from([0x00, 0x5b, 0, 0, 0, 0, 0, 0]));
      } else {
        socket.unshift(first);
        this.#parser?.emit('connection', socket);
        socket.resume();
      }
    });
    // A stream whose header was read is paused; a fresh one flows anyway.
    socket.resume();
  }
}

/**
 * A TCP client on this machine (the loopback proxy of sandboxes without the bridge), named from the
 * kernel's socket table at accept time: its pid is in the harness's own PID namespace, so it joins
 * the tracer's process table as it is. Unix-socket clients (no port) are the bridge's to name.
 */
function loopbackClient(socket: Socket): NetworkClient | undefined {
  if (socket.remotePort === undefined || socket.localPort === undefined) return undefined;
  const id = identifyClient('tcp', socket.remotePort, socket.localPort);
  if (id.pid === null) return { pid: null, reason: id.reason, port: id.port };
  return { pid: id.pid, port: id.port, ...(id.exe === undefined ? {} : { exe: id.exe }) };
}
