import { type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { WireUsage } from '../../evidence/types.js';
import { canonicalIp } from './allow-list.js';
import { requestLeaks, StreamScan } from './leak-scan.js';
import type { PlacedPiece } from './piece-ledger.js';
import type { Exchange } from './record-log.js';
import { clip, type Refusal, refusal, refusalFor } from './refusal.js';
import { admit, type ProxyContext } from './upstream.js';
import { decodeBody, MAX_USAGE_BODY, usageInBody } from './wire-usage.js';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Drops hop-by-hop headers (and those the Connection header names) from a rawHeaders list. */
export function endToEndHeaders(raw: readonly string[]): string[] {
  const named = new Set(HOP_BY_HOP);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() !== 'connection') continue;
    for (const token of (raw[i + 1] ?? '').split(',')) named.add(token.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!named.has(name.toLowerCase())) kept.push(name, raw[i + 1] ?? '');
  }
  return kept;
}

export type ProxyTarget =
  | { ok: true; host: string; port: number; path: string; authority: string }
  | { ok: false; host: string; reason: string };

/** An HTTP proxy request carries an absolute URI (`GET http://host:port/path`); anything else is refused. */
export function parseProxyTarget(url: string, hostHeader: string | undefined): ProxyTarget {
  if (url.startsWith('/')) {
    return {
      ok: false,
      host: clip(hostHeader ?? '', 253),
      reason: 'not a proxy request (origin-form target)',
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, host: '', reason: `malformed request target '${clip(url)}'` };
  }
  const host = canonicalIp(parsed.hostname) ?? parsed.hostname;
  if (parsed.protocol !== 'http:') {
    return {
      ok: false,
      host,
      reason: `unsupported scheme ${clip(parsed.protocol)} (https goes through CONNECT)`,
    };
  }
  if (host === '') return { ok: false, host, reason: 'request target has no host' };
  const port = parsed.port === '' ? 80 : Number(parsed.port);
  return { ok: true, host, port, path: `${parsed.pathname}${parsed.search}`, authority: parsed.host };
}

function withoutHost(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() !== 'host') kept.push(raw[i] ?? '', raw[i + 1] ?? '');
  }
  return kept;
}

function refuse(res: ServerResponse, refused: Refusal): void {
  res.writeHead(refused.status, refused.text, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(refused.body),
    connection: 'close',
  });
  res.end(refused.body);
}

/** Plain HTTP through the proxy: one upstream connection per request, body bytes counted both ways. */
export async function forwardHttp(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET';
  const target = parseProxyTarget(req.url ?? '', req.headers.host);
  const pieces: PlacedPiece[] = [];
  const leaks = requestLeaks(ctx.outbound?.scan, req.url ?? '', req.rawHeaders, pieces);
  const body = ctx.outbound
    ? new StreamScan(
        ctx.outbound.scan,
        'body',
        ctx.outbound.inflate,
        headerText(req.headers['content-encoding']),
      )
    : undefined;
  if (!target.ok) {
    const exchange = ctx.log.begin({
      host: target.host,
      port: 0,
      protocol: 'http',
      method,
      decision: 'denied',
      reason: target.reason,
      ...(leaks.length > 0 ? { leaks } : {}),
    });
    exchange.addLeaks([], undefined, pieces);
    exchange.finish();
    return refuse(res, refusal(400, target.reason));
  }
  const admission = await admit(ctx, {
    host: target.host,
    port: target.port,
    protocol: 'http',
    method,
    leaks,
    pieces,
  });
  if (!admission.ok) {
    // A refused request's body was sent all the same: what it carried is read (briefly) and scanned.
    if (body) await drainInto(req, body, admission.exchange);
    return refuse(res, refusalFor(admission));
  }
  const { exchange, socket } = admission;
  if (req.socket.destroyed) {
    socket.destroy();
    exchange.finish();
    return;
  }
  // RFC 9112 §3.2.2: with an absolute-form target the proxy replaces Host with the target's authority.
  const headers = [...withoutHost(endToEndHeaders(req.rawHeaders)), 'Host', target.authority];
  const upstream = request({
    method,
    path: target.path,
    headers,
    setHost: false,
    createConnection: () => socket,
  });
  res.on('close', () => {
    upstream.destroy();
    socket.destroy();
    exchange.finish();
  });
  upstream.on('error', (err: NodeJS.ErrnoException) => {
    exchange.fail(`upstream ${err.code ?? err.message}`);
    if (res.headersSent) res.destroy();
    else refuse(res, refusal(502, `upstream ${target.host}:${target.port} failed (${err.code ?? 'error'})`));
  });
  upstream.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEndHeaders(answer.rawHeaders));
    const usage = usageReader(answer);
    answer.on('data', (chunk: Buffer) => {
      exchange.bytesDown += chunk.length;
      usage?.push(chunk);
    });
    answer.on('end', () => {
      const found = usage?.end();
      if (found) exchange.record.usage = found;
    });
    answer.on('error', () => res.destroy());
    answer.pipe(res);
  });
  req.on('data', (chunk: Buffer) => {
    exchange.bytesUp += chunk.length;
    body?.push(chunk);
  });
  if (body) req.once('end', () => exchange.addLeaks(body.end(), body.incomplete, body.pieces));
  req.pipe(upstream);
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Bytes of a refused request's body read for the scan, and how long the proxy waits for them. */
const REFUSED_BODY_BYTES = 1 << 20;
const REFUSED_BODY_MS = 2000;

/** Reads what a refused request sends (at most REFUSED_BODY_BYTES, REFUSED_BODY_MS) into the scan. */
function drainInto(req: IncomingMessage, scan: StreamScan, exchange: Exchange): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      exchange.addLeaks(
        scan.end(),
        read >= REFUSED_BODY_BYTES ? 'a refused body was read only in part' : scan.incomplete,
        scan.pieces,
      );
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      scan.push(chunk);
      if (read >= REFUSED_BODY_BYTES) done();
    };
    const timer = setTimeout(done, REFUSED_BODY_MS);
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
  });
}

/** Bytes all answers being read for usage may hold at once (many large answers at a time are passed on unread). */
const MAX_HELD = 4 * MAX_USAGE_BODY;
let held = 0;

/**
 * Keeps a successful JSON or event-stream answer (up to MAX_USAGE_BODY, within MAX_HELD over all
 * answers) to read the provider's token usage from it when it ends; null for any other answer,
 * which is passed on unread. An answer that outgrows either limit is passed on unread too.
 */
function usageReader(answer: IncomingMessage): { push(chunk: Buffer): void; end(): WireUsage | null } | null {
  const type = String(answer.headers['content-type'] ?? '');
  if ((answer.statusCode ?? 500) >= 400 || !/json|event-stream/i.test(type)) return null;
  let chunks: Buffer[] | null = [];
  let size = 0;
  const drop = () => {
    held -= size;
    size = 0;
    chunks = null;
  };
  answer.once('close', () => {
    if (chunks) drop();
  });
  return {
    push(chunk) {
      if (!chunks) return;
      if (size + chunk.length > MAX_USAGE_BODY || held + chunk.length > MAX_HELD) return drop();
      chunks.push(chunk);
      size += chunk.length;
      held += chunk.length;
    },
    end() {
      if (!chunks) return null;
      const body = Buffer.concat(chunks);
      drop();
      const text = decodeBody(answer.headers['content-encoding'], body);
      return text === null ? null : usageInBody(type, text);
    },
  };
}
