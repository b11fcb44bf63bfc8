import type { Exchange } from './record-log.js';

export type Refusal = { status: number; text: string; body: string };

/** A request the proxy did not forward: its exchange, the reason's code, and whether policy denied it. */
export type RefusedAdmission = { ok: false; exchange: Exchange; code: string; denied: boolean };

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
};

/** Attacker-chosen text (hosts, URLs) goes into bodies and records: keep it short and on one line. */
export function clip(text: string, max = 200): string {
  const flat = text.replace(/[\r\n\t]/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function refusal(status: number, body: string): Refusal {
  return { status, text: STATUS_TEXT[status] ?? 'Error', body: `agentguard: ${clip(body, 400)}\n` };
}

/** Why a request did not get through, as the HTTP status the client sees. */
export function refusalFor(admission: RefusedAdmission): Refusal {
  const { host, port, reason } = admission.exchange.record;
  if (admission.denied) return refusal(403, `egress to ${host}:${port} denied (${reason})`);
  const status = admission.code === 'ETIMEDOUT' ? 504 : 502;
  return refusal(status, `connection to ${host}:${port} failed (${reason})`);
}

/** A complete HTTP/1.1 response for a raw socket (CONNECT and malformed requests). */
export function rawResponse(refused: Refusal): string {
  const length = Buffer.byteLength(refused.body);
  return (
    `HTTP/1.1 ${refused.status} ${refused.text}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${length}\r\nConnection: close\r\n\r\n${refused.body}`
  );
}
