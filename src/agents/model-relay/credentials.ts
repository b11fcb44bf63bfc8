import type { IncomingHttpHeaders } from 'node:http';

/** Where the four APIs' clients carry their key: a bearer token, or a header of its own. */
const KEY_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key'] as const;

/** Headers never passed on: hop-by-hop ones, and those the relay sets itself. */
const DROPPED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'accept-encoding',
]);

export type SwappedRequest = { headers: Record<string, string>; search: string };

/**
 * The request's headers and query with the run's stand-in key replaced by the real one, wherever
 * the agent's client put it (`Authorization: Bearer`, `x-api-key`, `x-goog-api-key`, `api-key`, or
 * `?key=`); null when the stand-in is in none of them, so a request without it is never sent with
 * the real key. Every other credential header is dropped rather than passed on.
 */
export function swapKey(
  headers: IncomingHttpHeaders,
  search: URLSearchParams,
  standIn: string,
  realKey: string,
): SwappedRequest | null {
  const out: Record<string, string> = {};
  let found = false;
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined || DROPPED.has(name)) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if ((KEY_HEADERS as readonly string[]).includes(name)) {
      const bearer = /^Bearer\s+(.+)$/i.exec(value);
      const presented = name === 'authorization' ? bearer?.[1]?.trim() : value.trim();
      if (presented !== standIn) continue;
      found = true;
      out[name] = name === 'authorization' ? `Bearer ${realKey}` : realKey;
      continue;
    }
    out[name] = value;
  }
  const query = new URLSearchParams(search);
  if (query.has('key')) {
    if (query.get('key') === standIn) {
      found = true;
      query.set('key', realKey);
    } else query.delete('key');
  }
  if (!found) return null;
  // Identity, so that the relay can read the provider's usage from the answer it passes on.
  out['accept-encoding'] = 'identity';
  const q = query.toString();
  return { headers: out, search: q === '' ? '' : `?${q}` };
}
