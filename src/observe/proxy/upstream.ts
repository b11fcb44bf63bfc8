import { connect, type Socket } from 'node:net';
import type { NetworkRecord } from '../../evidence/types.js';
import { normalizeHost } from './allow-list.js';
import type { EgressPolicy, UpstreamTarget } from './egress-policy.js';
import { leaksIn, mergeLeaks, type OutboundScan, StreamScan } from './leak-scan.js';
import type { PlacedPiece } from './piece-ledger.js';
import type { Exchange, RecordSink } from './record-log.js';
import { clip, type RefusedAdmission } from './refusal.js';

/** What the per-protocol handlers share with the proxy that owns them. */
export type ProxyContext = {
  policy: EgressPolicy;
  log: RecordSink;
  /** Registers a socket so that stop() can destroy it. */
  track(socket: Socket): void;
  connectTimeoutMs: number;
  /** The run's canaries and secret detectors over what leaves; unset: nothing is scanned. */
  outbound?: OutboundScan;
};

export type AdmitRequest = {
  host: string;
  port: number;
  protocol: NetworkRecord['protocol'];
  method?: string;
  /** What the request target and headers carried, found before the decision. */
  leaks?: NetworkRecord['leaks'];
  /** Canary pieces the request target and headers carried. */
  pieces?: PlacedPiece[];
};

export type Admission = { ok: true; exchange: Exchange; socket: Socket } | RefusedAdmission;

function connectUpstream(target: UpstreamTarget, ctx: ProxyContext): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.address, port: target.port, allowHalfOpen: true });
    ctx.track(socket);
    const timer = setTimeout(() => {
      socket.destroy();
      reject('ETIMEDOUT');
    }, ctx.connectTimeoutMs);
    const settle = (err?: string) => {
      clearTimeout(timer);
      socket.off('connect', onConnect);
      socket.off('error', onError);
      socket.off('close', onClose);
      if (err === undefined) resolve(socket);
      else reject(err);
    };
    const onConnect = () => settle();
    const onError = (err: NodeJS.ErrnoException) => settle(err.code ?? 'EIO');
    const onClose = () => settle('ECLOSED');
    socket.once('connect', onConnect);
    socket.once('error', onError);
    socket.once('close', onClose);
  });
}

/**
 * Decides, records and (when allowed) connects one request. The record is published to the live
 * listener here, once its decision and reason are final.
 */
export async function admit(ctx: ProxyContext, request: AdmitRequest): Promise<Admission> {
  const host = normalizeHost(request.host);
  // Longer than any DNS name: refuse without storing kilobytes of attacker text in the evidence.
  const verdict =
    host.length > 253
      ? { allowed: false, reason: 'host name longer than 253 characters' }
      : ctx.policy.decide(host, request.port);
  // The host asked for is scanned whole, before it is clipped for the record.
  const pieces = [...(request.pieces ?? [])];
  const leaks = leaksIn(ctx.outbound?.scan, 'host', host, pieces);
  mergeLeaks(leaks, request.leaks ?? []);
  const exchange = ctx.log.begin({
    host: clip(host, 253),
    port: request.port,
    protocol: request.protocol,
    decision: verdict.allowed ? 'allowed' : 'denied',
    reason: verdict.reason,
    ...(request.method === undefined ? {} : { method: request.method }),
    ...(leaks.length > 0 ? { leaks } : {}),
  });
  exchange.addLeaks([], undefined, pieces);
  if (!verdict.allowed) {
    exchange.finish();
    return { ok: false, exchange, code: 'EDENIED', denied: true };
  }
  const resolution = await ctx.policy.resolve(host, request.port);
  if (!resolution.ok) {
    if (resolution.denied) exchange.record.decision = 'denied';
    exchange.fail(resolution.reason);
    exchange.finish();
    return { ok: false, exchange, code: resolution.code, denied: resolution.denied };
  }
  try {
    const socket = await connectUpstream(resolution.target, ctx);
    exchange.countBytes();
    exchange.publish();
    return { ok: true, exchange, socket };
  } catch (code) {
    exchange.fail(`upstream ${String(code)}`);
    exchange.finish();
    return { ok: false, exchange, code: String(code), denied: false };
  }
}

/**
 * Joins two sockets both ways, counting bytes. Half-closes pass through (allowHalfOpen on both
 * sides); a finished upstream ends the client gently so buffered bytes still reach it.
 */
export function splice(
  ctx: ProxyContext,
  client: Socket,
  upstream: Socket,
  exchange: Exchange,
  head?: Buffer,
): void {
  if (client.destroyed) {
    upstream.destroy();
    exchange.finish();
    return;
  }
  let open = 2;
  const closed = () => {
    open -= 1;
    if (open === 0) exchange.finish();
  };
  // What goes up a tunnel is scanned too: TLS inside it is noise to the detectors, a plain protocol is not.
  const scan = ctx.outbound ? new StreamScan(ctx.outbound.scan, 'tunnel') : undefined;
  const flush = () => {
    if (scan) exchange.addLeaks(scan.end(), scan.incomplete, scan.pieces);
  };
  client.on('data', (chunk: Buffer) => {
    exchange.bytesUp += chunk.length;
    scan?.push(chunk);
  });
  upstream.on('data', (chunk: Buffer) => {
    exchange.bytesDown += chunk.length;
  });
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.once('close', () => {
    flush();
    upstream.destroy();
    closed();
  });
  upstream.once('close', () => {
    client.end();
    closed();
  });
  if (head !== undefined && head.length > 0) {
    exchange.bytesUp += head.length;
    scan?.push(head);
    upstream.write(head);
  }
  client.pipe(upstream);
  upstream.pipe(client);
}
