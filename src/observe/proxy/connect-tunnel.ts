import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { canonicalIp } from './allow-list.js';
import { clip, rawResponse, refusal, refusalFor } from './refusal.js';
import { admit, type ProxyContext, splice } from './upstream.js';

/** `host:port` or `[v6]:port`, as a CONNECT request target must be. */
export function parseAuthority(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]/@\s]+)):(\d{1,5})$/.exec(text);
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  if (match[1] !== undefined) {
    const ip = canonicalIp(match[1]);
    return ip === undefined ? undefined : { host: ip, port };
  }
  return match[2] === undefined ? undefined : { host: match[2], port };
}

/** HTTPS (or any TCP) through `CONNECT host:port`: decide, connect, then splice raw bytes. */
export async function tunnelConnect(
  ctx: ProxyContext,
  req: IncomingMessage,
  client: Socket,
  head: Buffer,
): Promise<void> {
  // Bytes the client sends before the tunnel exists must wait in the socket, not be dropped.
  client.pause();
  client.on('error', () => client.destroy());
  const target = parseAuthority(req.url ?? '');
  if (target === undefined) {
    const reason = `malformed CONNECT target '${clip(req.url ?? '')}'`;
    ctx.log.note({ host: '', port: 0, protocol: 'connect', method: 'CONNECT', decision: 'denied', reason });
    client.end(rawResponse(refusal(400, reason)));
    return;
  }
  const admission = await admit(ctx, { ...target, protocol: 'connect', method: 'CONNECT' });
  if (!admission.ok) {
    client.end(rawResponse(refusalFor(admission)));
    return;
  }
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  splice(ctx, client, admission.socket, admission.exchange, head);
}
