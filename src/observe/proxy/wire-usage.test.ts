import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody, usageInBody } from './wire-usage.js';

const json = 'application/json';
const sse = 'text/event-stream';
const stream = (...events: unknown[]) =>
  events.map((e) => `event: x\ndata: ${JSON.stringify(e)}\n\n`).join('');

describe('usageInBody reads what a provider says it used', () => {
  it('OpenAI Chat Completions, with cached prompt tokens', () => {
    const body = {
      object: 'chat.completion',
      usage: { prompt_tokens: 120, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 100 } },
    };
    expect(usageInBody(json, JSON.stringify(body))).toEqual({
      api: 'openai-chat',
      input_tokens: 120,
      output_tokens: 30,
      cached_tokens: 100,
    });
  });

  it('OpenAI Responses, whole and streamed (response.completed)', () => {
    const usage = { input_tokens: 50, output_tokens: 7, input_tokens_details: { cached_tokens: 10 } };
    const want = { api: 'openai-responses', input_tokens: 50, output_tokens: 7, cached_tokens: 10 };
    expect(usageInBody(json, JSON.stringify({ object: 'response', usage }))).toEqual(want);
    const text = stream(
      { type: 'response.created', response: { usage: null } },
      { type: 'response.output_text.delta', delta: 'hi' },
      { type: 'response.completed', response: { usage } },
    );
    expect(usageInBody(sse, `${text}data: [DONE]\n\n`)).toEqual(want);
  });

  it('Anthropic, whole (cache reads count as input) and streamed (message_start, then message_delta)', () => {
    const whole = {
      type: 'message',
      usage: {
        input_tokens: 20,
        cache_read_input_tokens: 80,
        cache_creation_input_tokens: 5,
        output_tokens: 9,
      },
    };
    expect(usageInBody(json, JSON.stringify(whole))).toEqual({
      api: 'anthropic',
      input_tokens: 105,
      output_tokens: 9,
      cached_tokens: 80,
    });
    const text = stream(
      { type: 'message_start', message: { usage: { input_tokens: 12, output_tokens: 1 } } },
      { type: 'content_block_delta', delta: { text: 'x' } },
      { type: 'message_delta', usage: { output_tokens: 44 } },
    );
    expect(usageInBody(sse, text)).toEqual({
      api: 'anthropic',
      input_tokens: 12,
      output_tokens: 44,
      cached_tokens: 0,
    });
  });

  it('Gemini, cumulative in each streamed chunk, also as a JSON array', () => {
    const chunks = [
      { usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 2 } },
      {
        usageMetadata: {
          promptTokenCount: 30,
          candidatesTokenCount: 15,
          thoughtsTokenCount: 4,
          cachedContentTokenCount: 8,
        },
      },
    ];
    const want = { api: 'gemini', input_tokens: 30, output_tokens: 19, cached_tokens: 8 };
    expect(usageInBody(sse, stream(...chunks))).toEqual(want);
    expect(usageInBody(json, JSON.stringify(chunks))).toEqual(want);
  });

  it('says nothing of bodies that state no usage: other JSON, HTML, broken JSON, negative numbers', () => {
    expect(usageInBody(json, '{"name":"left-pad","version":"1.3.0"}')).toBeNull();
    expect(usageInBody('text/html', '<html>')).toBeNull();
    expect(usageInBody(json, '{"usage": {"prompt_tokens": 5')).toBeNull();
    expect(usageInBody(json, '{"usage":{"prompt_tokens":-5,"completion_tokens":"7"}}')).toEqual({
      api: 'openai-chat',
      input_tokens: 0,
      output_tokens: 0,
      cached_tokens: 0,
    });
  });

  it('undoes gzip, refuses what it cannot decode', () => {
    const body = JSON.stringify({ usage: { prompt_tokens: 1, completion_tokens: 2 } });
    expect(decodeBody('gzip', gzipSync(body))).toBe(body);
    expect(decodeBody('gzip', Buffer.from('not gzip'))).toBeNull();
    expect(decodeBody('zstd', Buffer.from(body))).toBeNull();
    expect(decodeBody(undefined, Buffer.from(body))).toBe(body);
  });
});
