import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { parseProxyTarget } from './http-forward.js';
import { requestLeaks } from './leak-scan.js';
import type { PlacedPiece } from './piece-ledger.js';
import { rawResponse, refusal, refusalFor } from './refusal.js';
import { admit, type ProxyContext, splice } from './upstream.js';
import { WebSocketScan } from './websocket-scan.js';

/**
 * `GET http://host/ws` with `Upgrade:` (WebSocket through a plain HTTP proxy): replay the request
 * head upstream and splice, so the upgrade handshake happens end to end. What a WebSocket client
 * sends is read as frames too (WebSocketScan).
 */
export async function forwardUpgrade(
  ctx: ProxyContext,
  req: IncomingMessage,
  client: Socket,
  head: Buffer,
): Promise<void> {
  client.pause();
  client.on('error', () => client.destroy());
  const method = req.method ?? 'GET';
  const target = parseProxyTarget(req.url ?? '', req.headers.host);
  if (!target.ok) {
    ctx.log.note({
      host: target.host,
      port: 0,
      protocol: 'http',
      method,
      decision: 'denied',
      reason: target.reason,
    });
    client.end(rawResponse(refusal(400, target.reason)));
    return;
  }
  const pieces: PlacedPiece[] = [];
  const leaks = requestLeaks(ctx.outbound?.scan, req.url ?? '', req.rawHeaders, pieces);
  const admission = await admit(ctx, {
    host: target.host,
    port: target.port,
    protocol: 'http',
    method,
    leaks,
    pieces,
  });
  const ws =
    ctx.outbound && /(^|,)\s*websocket\s*(,|$)/i.test(String(req.headers.upgrade ?? ''))
      ? new WebSocketScan(ctx.outbound.scan)
      : undefined;
  if (!admission.ok) {
    // Frames a client sent without waiting for the answer were sent all the same: read them briefly.
    if (ws) await readRefused(client, head, ws);
    if (ws) admission.exchange.addLeaks(ws.end(), ws.stream.incomplete, ws.stream.pieces);
    client.end(rawResponse(refusalFor(admission)));
    return;
  }
  // Connection and Upgrade must reach the server here; only proxy headers and Host are replaced.
  const lines = [`${method} ${target.path} HTTP/1.1`, `Host: ${target.authority}`];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? '').toLowerCase();
    if (!name.startsWith('proxy-') && name !== 'host')
      lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1] ?? ''}`);
  }
  admission.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  // A WebSocket's messages are read unmasked and inflated; the tunnel's scan reads the bytes as sent.
  if (ws) {
    const { exchange } = admission;
    client.on('data', (chunk: Buffer) => ws.push(chunk));
    client.once('close', () => exchange.addLeaks(ws.end(), ws.stream.incomplete, ws.stream.pieces));
    if (head.length > 0) ws.push(head);
  }
  splice(ctx, client, admission.socket, admission.exchange, head);
}

/** Bytes of a refused upgrade read for the scan; how long in all, and how long after the last bytes, the proxy waits. */
const REFUSED_BYTES = 1 << 20;
const REFUSED_MS = 2000;
const REFUSED_IDLE_MS = 200;

/**
 * What a refused WebSocket client sent at once (its frames after the request, without waiting for
 * the answer), into the scan: until it pauses for REFUSED_IDLE_MS, at most REFUSED_MS and REFUSED_BYTES.
 */
function readRefused(client: Socket, head: Buffer, ws: WebSocketScan): Promise<void> {
  let read = head.length;
  if (head.length > 0) ws.push(head);
  return new Promise((resolve) => {
    let idle: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(total);
      clearTimeout(idle);
      client.off('data', onData);
      client.off('end', done);
      client.off('close', done);
      client.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      ws.push(chunk);
      clearTimeout(idle);
      if (read >= REFUSED_BYTES) done();
      else idle = setTimeout(done, REFUSED_IDLE_MS);
    };
    const total = setTimeout(done, REFUSED_MS);
    idle = setTimeout(done, read >= REFUSED_BYTES ? 0 : REFUSED_IDLE_MS);
    client.on('data', onData);
    client.once('end', done);
    client.once('close', done);
    client.resume();
  });
}
