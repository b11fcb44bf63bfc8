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
  if (!admission.ok) {
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
  if (ctx.outbound && /(^|,)\s*websocket\s*(,|$)/i.test(String(req.headers.upgrade ?? ''))) {
    const ws = new WebSocketScan(ctx.outbound.scan);
    const { exchange } = admission;
    client.on('data', (chunk: Buffer) => ws.push(chunk));
    client.once('close', () => exchange.addLeaks(ws.end(), ws.stream.incomplete, ws.stream.pieces));
    if (head.length > 0) ws.push(head);
  }
  splice(ctx, client, admission.socket, admission.exchange, head);
}
