import type { ServerResponse } from 'node:http';
import { anthropicCodec } from './api/anthropic.js';
import { chatCodec } from './api/chat.js';
import type { ApiCodec } from './api/codec.js';
import { geminiCodec, geminiError } from './api/gemini.js';
import { responsesCodec } from './api/responses.js';
import type { ModelRecord } from './types.js';
import { approxTokens, sendJson } from './wire.js';

/** The part of a record a handler decides; the server adds seq, times, method and path. */
export type RecordTail = Pick<ModelRecord, 'api' | 'status' | 'kind' | 'response'> &
  Partial<Pick<ModelRecord, 'turn' | 'turn_id' | 'branch' | 'request'>>;

export type Route =
  | { kind: 'chat-api'; codec: ApiCodec }
  | { kind: 'count_tokens'; api: 'anthropic' | 'gemini' }
  | { kind: 'models'; id: string | null }
  | { kind: 'hello' }
  | { kind: 'not-found' };

const CODECS: Record<string, ApiCodec> = {
  '/responses': responsesCodec,
  '/chat/completions': chatCodec,
  '/messages': anthropicCodec,
};

/** The Gemini API's `POST /v1beta/models/MODEL:METHOD` (also under `/v1`). */
const GEMINI = /^\/v1(?:beta)?\/models\/[^/:]+:(generateContent|streamGenerateContent|countTokens)$/;

export function routeOf(method: string, pathname: string): Route {
  const p = pathname.replace(/^\/v1(?=\/)/, '').replace(/\/+$/, '');
  if (method === 'POST') {
    const codec = CODECS[p];
    if (codec) return { kind: 'chat-api', codec };
    if (p === '/messages/count_tokens') return { kind: 'count_tokens', api: 'anthropic' };
    const gemini = GEMINI.exec(pathname.replace(/\/+$/, ''));
    if (gemini?.[1] === 'countTokens') return { kind: 'count_tokens', api: 'gemini' };
    if (gemini) return { kind: 'chat-api', codec: geminiCodec };
  }
  if (method === 'GET' && p === '/models') return { kind: 'models', id: null };
  // claude-code's connectivity probe when non-essential traffic is allowed.
  if ((method === 'HEAD' || method === 'GET') && p === '/api/hello') return { kind: 'hello' };
  const model = /^\/models\/([^/]+)$/.exec(p);
  if (method === 'GET' && model) return { kind: 'models', id: decodeURIComponent(model[1] ?? '') };
  return { kind: 'not-found' };
}

/** Answer the endpoints that are not a model turn: token counts, model lists, probes, and 404s. */
export function answerProbe(
  route: Exclude<Route, { kind: 'chat-api' }>,
  method: string,
  pathname: string,
  raw: string,
  res: ServerResponse,
  models: readonly string[],
): RecordTail {
  const empty = { text: '', tool_calls: [], output_tokens: 0, stop: 'end_turn' as const };
  switch (route.kind) {
    case 'count_tokens': {
      const tokens = approxTokens(raw.length);
      sendJson(res, 200, route.api === 'gemini' ? { totalTokens: tokens } : { input_tokens: tokens });
      return { api: 'count_tokens', status: 200, kind: 'probe', response: empty };
    }
    case 'hello':
      sendJson(res, 200, {});
      return { api: 'other', status: 200, kind: 'probe', response: empty };
    case 'models': {
      // One shape that both OpenAI (object/data) and Anthropic (data/has_more) clients accept.
      const entry = (id: string) => ({
        id,
        object: 'model',
        type: 'model',
        display_name: id,
        created: 0,
        owned_by: 'agentguard',
        created_at: '1970-01-01T00:00:00Z',
      });
      const list = {
        object: 'list',
        data: models.map(entry),
        has_more: false,
        first_id: models[0] ?? null,
        last_id: models.at(-1) ?? null,
      };
      sendJson(res, 200, route.id === null ? list : entry(route.id));
      return { api: 'models', status: 200, kind: 'probe', response: empty };
    }
    case 'not-found': {
      const message = `agentguard model-server: no endpoint ${method} ${pathname}`;
      // The Gemini SDK reads Google's error shape; the other clients read the Anthropic/OpenAI one.
      if (pathname.startsWith('/v1beta/')) sendJson(res, 404, geminiError(404, message));
      else sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message } });
      return {
        api: 'other',
        status: 404,
        kind: 'not-found',
        response: { ...empty, stop: 'error', error: message },
      };
    }
  }
}
