import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { WireUsage } from '../../evidence/types.js';

/** Bodies longer than this are passed on but not read for usage (a model answer is far smaller). */
export const MAX_USAGE_BODY = 8 << 20;

type Counts = { input: number; output: number; cached: number };
type Reader = { api: WireUsage['api']; read(o: Record<string, unknown>): Counts | null };

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const obj = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * Each provider's usage fields, normalised so that `input` counts every input token (cached ones
 * included) and `cached` the part served from a prompt cache. A streamed answer repeats or splits
 * them over its events; the largest value of each field is the answer's.
 */
const READERS: Reader[] = [
  {
    // OpenAI Responses API: `usage`, or in a stream `response.completed`'s `response.usage`.
    api: 'openai-responses',
    read(o) {
      const u = obj(o.usage) ?? obj(obj(o.response)?.usage);
      if (!u || !('input_tokens' in u) || !('output_tokens' in u) || 'cache_read_input_tokens' in u)
        return null;
      if (obj(o.message) || o.type === 'message') return null;
      return {
        input: num(u.input_tokens),
        output: num(u.output_tokens),
        cached: num(obj(u.input_tokens_details)?.cached_tokens),
      };
    },
  },
  {
    // Anthropic Messages: `usage` (input without the cache; cache reads and writes apart), in a
    // stream `message_start`'s `message.usage`, then `message_delta`'s running output count.
    api: 'anthropic',
    read(o) {
      const u = obj(o.usage) ?? obj(obj(o.message)?.usage);
      const anthropic = o.type === 'message' || obj(o.message) !== null || o.type === 'message_delta';
      if (!u || !anthropic) return null;
      const cached = num(u.cache_read_input_tokens);
      return {
        input: num(u.input_tokens) + cached + num(u.cache_creation_input_tokens),
        output: num(u.output_tokens),
        cached,
      };
    },
  },
  {
    // OpenAI Chat Completions (and the many servers that speak it): `usage.prompt_tokens`.
    api: 'openai-chat',
    read(o) {
      const u = obj(o.usage);
      if (!u || !('prompt_tokens' in u)) return null;
      return {
        input: num(u.prompt_tokens),
        output: num(u.completion_tokens),
        cached: num(obj(u.prompt_tokens_details)?.cached_tokens),
      };
    },
  },
  {
    // Gemini: `usageMetadata`, cumulative in every streamed chunk.
    api: 'gemini',
    read(o) {
      const u = obj(o.usageMetadata);
      if (!u) return null;
      return {
        input: num(u.promptTokenCount),
        output: num(u.candidatesTokenCount) + num(u.thoughtsTokenCount),
        cached: num(u.cachedContentTokenCount),
      };
    },
  },
];

/** The JSON documents of a body: one for JSON, one per `data:` line of a server-sent event stream. */
export function documents(contentType: string, text: string): unknown[] {
  const parse = (s: string): unknown => {
    try {
      return JSON.parse(s);
    } catch {
      return null;
    }
  };
  if (/event-stream/i.test(contentType)) {
    return text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => parse(line.slice(5).trim()));
  }
  const whole = parse(text);
  // Some servers stream JSON arrays (Gemini's streamGenerateContent without SSE).
  return Array.isArray(whole) ? whole : [whole];
}

/** The body as text, undone from its content-encoding; null for one this cannot undo. */
export function decodeBody(encoding: string | undefined, body: Buffer): string | null {
  try {
    switch ((encoding ?? 'identity').trim().toLowerCase()) {
      case 'identity':
      case '':
        return body.toString('utf8');
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(body, { maxOutputLength: MAX_USAGE_BODY * 4 }).toString('utf8');
      case 'deflate':
        return inflateSync(body, { maxOutputLength: MAX_USAGE_BODY * 4 }).toString('utf8');
      case 'br':
        return brotliDecompressSync(body, { maxOutputLength: MAX_USAGE_BODY * 4 }).toString('utf8');
      default:
        return null;
    }
  } catch {
    return null;
  }
}

/**
 * The token usage a model provider's answer states, or null when the body states none (not JSON,
 * not a model answer). Pure: the proxy calls it on the plain-HTTP answers it forwards.
 */
export function usageInBody(contentType: string, text: string): WireUsage | null {
  const seen: WireUsage[] = [];
  for (const doc of documents(contentType, text)) {
    const o = obj(doc);
    if (!o) continue;
    for (const reader of READERS) {
      const counts = reader.read(o);
      if (!counts) continue;
      seen.push({
        api: reader.api,
        input_tokens: counts.input,
        output_tokens: counts.output,
        cached_tokens: counts.cached,
      });
      break;
    }
  }
  const first = seen[0];
  if (!first) return null;
  // One answer speaks one API; the largest value of each field over its events is the answer's.
  const same = seen.filter((u) => u.api === first.api);
  return {
    api: first.api,
    input_tokens: Math.max(...same.map((u) => u.input_tokens)),
    output_tokens: Math.max(...same.map((u) => u.output_tokens)),
    cached_tokens: Math.max(...same.map((u) => u.cached_tokens)),
  };
}
