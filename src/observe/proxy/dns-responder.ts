import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { ConfigError, InternalError, SetupError } from '../../errors.js';
import type { NetworkClient, NetworkRecord } from '../../evidence/types.js';
import { type AllowEntry, matchAllow, normalizeHost, parseAllowList } from './allow-list.js';
import { BridgeTrust } from './bridge-trust.js';
import {
  buildDnsError,
  buildDnsResponse,
  type DnsAnswer,
  parseDnsQuery,
  RCODE,
  typeName,
} from './dns-message.js';
import { type HostsMap, hostsHasName, type ParsedHostsMap, parseHostsMap } from './hosts-map.js';
import { leaksIn, mergeLeaks, type OutboundScan } from './leak-scan.js';
import { closeServer, listenUnix, removeSocketFile } from './listen.js';
import { NameSequences } from './name-sequences.js';
import type { PlacedPiece } from './piece-ledger.js';
import { clockFromNow, type RecordListener, RecordLog } from './record-log.js';

/** Options of the local DNS responder that stands in for every resolver inside the sandbox. */
export type DnsResponderOptions = {
  /** Names in the hosts map are answered with 127.0.0.1. */
  hosts?: HostsMap;
  /** Names the allow list allows (on any port) are answered with 127.0.0.1 too, for tools that resolve before using the proxy. */
  allow?: readonly string[];
  /** Unix stream socket speaking DNS-over-TCP framing (2-byte length prefix); the sandbox bridge uses it. */
  unixPath?: string;
  /** Also answer UDP on 127.0.0.1 at this port (0 picks a free one). */
  udpPort?: number;
  onRecord?: RecordListener;
  clock?: () => number;
  /** Unix connections open at once. Default 64. */
  maxConnections?: number;
  /** The run's canaries and secret detectors over the names asked for; unset: nothing is scanned. */
  outbound?: OutboundScan;
};

export type DnsResponderAddress = { unixPath?: string; udpPort?: number };

const LOCAL_A: DnsAnswer = { type: 1, ttl: 60, data: Buffer.from([127, 0, 0, 1]) };
const MAX_TCP_MESSAGE = 4096;

/**
 * Answers every query locally, so that no lookup leaves the machine, and records each one with
 * protocol 'dns' — a DNS-tunnelling attempt shows up as names like `c2VjcmV0.evil.example`.
 */
export class DnsResponder {
  readonly #options: DnsResponderOptions;
  readonly #hosts: ParsedHostsMap;
  readonly #allow: AllowEntry[];
  readonly #connections = new Set<Socket>();
  #log: RecordLog | undefined;
  #udp: UdpSocket | undefined;
  #server: Server | undefined;
  #address: DnsResponderAddress | undefined;
  #stopped: NetworkRecord[] | undefined;
  #unixBound = false;
  #trust: BridgeTrust | undefined;
  #sequences: NameSequences | undefined;

  constructor(options: DnsResponderOptions) {
    const allow = parseAllowList(options.allow ?? []);
    const hosts = parseHostsMap(options.hosts ?? {});
    const issues = [...allow.issues, ...hosts.issues];
    if (issues.length > 0) throw new ConfigError(`network allow list / hosts: ${issues.join('; ')}`);
    if (options.unixPath === undefined && options.udpPort === undefined) {
      throw new InternalError('DnsResponder needs a unixPath, a udpPort or both');
    }
    this.#options = options;
    if (options.outbound) this.#sequences = new NameSequences(options.outbound.scan);
    this.#hosts = hosts.map;
    // For a name lookup the port is unknown: an entry for any port makes the name resolvable.
    this.#allow = allow.entries.map(({ port: _port, ...entry }) => entry);
  }

  get address(): DnsResponderAddress | undefined {
    return this.#address;
  }

  async start(): Promise<DnsResponderAddress> {
    if (this.#log !== undefined) throw new InternalError('DnsResponder.start() called twice');
    this.#log = new RecordLog(
      this.#options.clock ?? clockFromNow(),
      this.#options.onRecord,
      this.#options.outbound,
    );
    const address: DnsResponderAddress = {};
    try {
      if (this.#options.unixPath !== undefined) {
        // Only the sandbox bridge relays through the Unix socket, and it names each query's process.
        const trust = new BridgeTrust(this.#options.unixPath);
        this.#trust = trust;
        this.#server = this.#createStreamServer(trust);
        await listenUnix(this.#server, this.#options.unixPath);
        this.#unixBound = true;
        await trust.start();
        address.unixPath = this.#options.unixPath;
      }
      if (this.#options.udpPort !== undefined) address.udpPort = await this.#bindUdp(this.#options.udpPort);
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.#address = address;
    return address;
  }

  async stop(): Promise<NetworkRecord[]> {
    if (this.#stopped !== undefined) return this.#stopped;
    const closing = this.#server === undefined ? Promise.resolve() : closeServer(this.#server);
    for (const socket of this.#connections) socket.destroy();
    await closing;
    if (this.#udp !== undefined) await new Promise<void>((resolve) => this.#udp?.close(() => resolve()));
    if (this.#unixBound && this.#options.unixPath !== undefined)
      await removeSocketFile(this.#options.unixPath);
    await this.#trust?.stop();
    this.#stopped = this.#log?.drain() ?? [];
    return this.#stopped;
  }

  /** Answers one wire-format query; undefined when it deserves no reply at all. */
  answer(message: Buffer, client?: NetworkClient): Buffer | undefined {
    const log = this.#log;
    if (log === undefined) throw new InternalError('DnsResponder.answer() before start()');
    const base = {
      port: 53,
      protocol: 'dns' as const,
      bytes_up: message.length,
      ...(client === undefined ? {} : { client }),
    };
    const parsed = parseDnsQuery(message);
    if (!parsed.ok) {
      const reply =
        parsed.respond && parsed.id !== undefined ? buildDnsError(parsed.id, RCODE.formErr) : undefined;
      const reason = `malformed DNS query (${parsed.reason})`;
      log.note({ ...base, host: '', decision: 'denied', reason, bytes_down: reply?.length ?? 0 });
      return reply;
    }
    const { query } = parsed;
    // Case is kept as asked: tunnelled payloads are often case-sensitive (base64). Matching ignores it.
    const host = query.question.name;
    const method = typeName(query.question.type);
    let rcode: number = RCODE.noError;
    let answers: DnsAnswer[] = [];
    let reason: string;
    const known = this.#known(host);
    if (query.opcode !== 0) {
      rcode = RCODE.notImp;
      reason = `opcode ${query.opcode} not implemented`;
    } else if (known === undefined) {
      rcode = RCODE.nxDomain;
      reason = 'NXDOMAIN (not in hosts map or allow list)';
    } else if (query.question.type === 1 || query.question.type === 255) {
      answers = [LOCAL_A];
      reason = `answered 127.0.0.1 (${known})`;
    } else {
      // No AAAA: the sandbox bridge listens on 127.0.0.1 only, so clients should fall back to A.
      reason = `answered no ${method} records (${known})`;
    }
    const reply = buildDnsResponse(message, query, rcode, answers);
    const decision = rcode === RCODE.noError ? 'allowed' : 'denied';
    const pieces: PlacedPiece[] = [];
    const leaks = leaksIn(this.#options.outbound?.scan, 'host', host, pieces);
    mergeLeaks(leaks, this.#sequences?.add(host, leaks) ?? []);
    const found = leaks.length > 0 ? { leaks } : {};
    const exchange = log.begin({
      ...base,
      host,
      method,
      decision,
      reason,
      bytes_down: reply.length,
      ...found,
    });
    exchange.addLeaks([], undefined, pieces);
    exchange.finish();
    return reply;
  }

  #known(asked: string): string | undefined {
    const host = normalizeHost(asked);
    if (host === '') return undefined;
    if (hostsHasName(this.#hosts, host)) return 'hosts map';
    const verdict = matchAllow(host, 0, this.#allow);
    return verdict.allowed ? verdict.reason : undefined;
  }

  #bindUdp(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const udp = createSocket('udp4');
      this.#udp = udp;
      udp.once('error', (err) => reject(new SetupError(`cannot bind UDP 127.0.0.1:${port}: ${err.message}`)));
      udp.on('message', (message, remote) => {
        const reply = this.answer(message);
        if (reply !== undefined) udp.send(reply, remote.port, remote.address);
      });
      udp.bind(port, '127.0.0.1', () => {
        udp.removeAllListeners('error');
        udp.on('error', () => {});
        resolve(udp.address().port);
      });
    });
  }

  #createStreamServer(trust: BridgeTrust): Server {
    const max = this.#options.maxConnections ?? 64;
    return createServer((socket) => {
      if (this.#connections.size >= max) return void socket.destroy();
      this.#connections.add(socket);
      socket.once('close', () => this.#connections.delete(socket));
      socket.on('error', () => socket.destroy());
      socket.setTimeout(10_000, () => socket.destroy());
      trust.accept(socket).then(
        (accepted) => {
          if (accepted.kind === 'client') this.#serveStream(socket, accepted.client, accepted.rest);
        },
        () => socket.destroy(),
      );
    });
  }

  #serveStream(socket: Socket, client: NetworkClient, rest: Buffer): void {
    let pending = rest;
    const onBytes = (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const length = pending.readUInt16BE(0);
        if (length > MAX_TCP_MESSAGE) {
          this.#log?.note({
            host: '',
            port: 53,
            protocol: 'dns',
            decision: 'denied',
            reason: `DNS message of ${length} bytes`,
            client,
          });
          return void socket.destroy();
        }
        if (pending.length < 2 + length) break;
        const reply = this.answer(pending.subarray(2, 2 + length), client);
        pending = pending.subarray(2 + length);
        if (reply === undefined) continue;
        const frame = Buffer.alloc(2);
        frame.writeUInt16BE(reply.length, 0);
        socket.write(Buffer.concat([frame, reply]));
      }
    };
    onBytes(Buffer.alloc(0));
    socket.on('data', onBytes);
    socket.resume();
  }
}
