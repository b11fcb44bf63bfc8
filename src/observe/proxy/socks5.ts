import type { Socket } from 'node:net';
import { canonicalIp } from './allow-list.js';
import { ByteReader } from './byte-reader.js';
import { clip } from './refusal.js';
import { admit, type ProxyContext, splice } from './upstream.js';

// RFC 1928 reply codes this proxy uses.
const REPLY = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  networkUnreachable: 0x03,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
} as const;

const COMMANDS: Record<number, string> = { 1: 'CONNECT', 2: 'BIND', 3: 'UDP ASSOCIATE' };

function replyFor(code: string, denied: boolean): number {
  if (denied) return REPLY.notAllowed;
  switch (code) {
    case 'ECONNREFUSED':
      return REPLY.connectionRefused;
    case 'ENETUNREACH':
      return REPLY.networkUnreachable;
    case 'EHOSTUNREACH':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
      return REPLY.hostUnreachable;
    default:
      return REPLY.generalFailure;
  }
}

function reply(code: number): Buffer {
  // The bound address is not meaningful through a proxy; clients ignore 0.0.0.0:0.
  return Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
}

function ipv6Text(bytes: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return canonicalIp(groups.join(':')) ?? groups.join(':');
}

type SocksTarget = { command: number; host: string; port: number } | { error: string; reply: number };

async function readRequest(reader: ByteReader): Promise<SocksTarget> {
  const [version, command, reserved, addressType] = await reader.take(4);
  if (version !== 0x05 || reserved !== 0x00)
    return { error: 'bad request header', reply: REPLY.generalFailure };
  let host: string;
  if (addressType === 0x01) host = [...(await reader.take(4))].join('.');
  else if (addressType === 0x04) host = ipv6Text(await reader.take(16));
  else if (addressType === 0x03) {
    const [length = 0] = await reader.take(1);
    if (length === 0) return { error: 'empty domain name', reply: REPLY.generalFailure };
    host = (await reader.take(length)).toString('latin1');
  } else return { error: `address type ${addressType}`, reply: REPLY.addressTypeNotSupported };
  const port = (await reader.take(2)).readUInt16BE(0);
  return { command: command ?? 0, host, port };
}

/** SOCKS5 without authentication, CONNECT only; `initial` holds the bytes already sniffed. */
export async function serveSocks5(ctx: ProxyContext, client: Socket, initial: Buffer): Promise<void> {
  const reader = new ByteReader(client, initial);
  const malformed = (reason: string, code: number) => {
    ctx.log.note({
      host: '',
      port: 0,
      protocol: 'socks',
      decision: 'denied',
      reason: `malformed SOCKS5: ${reason}`,
    });
    client.end(reply(code));
  };
  let target: SocksTarget;
  try {
    const [version, count = 0] = await reader.take(2);
    const methods = count > 0 ? await reader.take(count) : Buffer.alloc(0);
    if (version !== 0x05 || count === 0) return malformed('bad greeting', REPLY.generalFailure);
    if (!methods.includes(0x00)) {
      ctx.log.note({
        host: '',
        port: 0,
        protocol: 'socks',
        decision: 'denied',
        reason: 'SOCKS5 client offered no "no auth" method',
      });
      client.end(Buffer.from([0x05, 0xff]));
      return;
    }
    client.write(Buffer.from([0x05, 0x00]));
    target = await readRequest(reader);
  } catch {
    // The client left mid-handshake: nothing was requested, so there is nothing to record.
    client.destroy();
    return;
  }
  if ('error' in target) return malformed(target.error, target.reply);
  if (target.command !== 0x01) {
    const name = COMMANDS[target.command] ?? `command ${target.command}`;
    const host = clip(target.host);
    ctx.log.note({
      host,
      port: target.port,
      protocol: 'socks',
      method: name,
      decision: 'denied',
      reason: `SOCKS5 ${name} not supported`,
    });
    client.end(reply(REPLY.commandNotSupported));
    return;
  }
  const admission = await admit(ctx, {
    host: target.host,
    port: target.port,
    protocol: 'socks',
    method: 'CONNECT',
  });
  if (!admission.ok) {
    client.end(reply(replyFor(admission.code, admission.denied)));
    return;
  }
  client.write(reply(REPLY.succeeded));
  // The handshake deadline is over; an idle tunnel is legitimate.
  client.setTimeout(0);
  const rest = reader.release();
  splice(ctx, client, admission.socket, admission.exchange, rest);
}
