import type { ServerResponse } from 'node:http';
import type { ConversationView } from '../types.js';
import {
  afterLast,
  asArray,
  contentText,
  countRuns,
  isObj,
  type Obj,
  offeredTools,
  sendJson,
  sse,
  startSse,
  str,
} from '../wire.js';
import type { ApiCodec, MessageReply, ReplyMeta } from './codec.js';

const isAssistant = (m: unknown): boolean => isObj(m) && m.role === 'assistant';

function blocks(message: unknown): unknown[] {
  if (!isObj(message)) return [];
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : asArray(message.content);
}

/** Anthropic Messages (`POST /v1/messages`, with `?beta=true` from claude-code), streamed or not. */
export const anthropicCodec: ApiCodec = {
  api: 'anthropic',
  callIdPrefix: 'toolu_',

  read(body: Obj): ConversationView {
    const messages = asArray(body.messages);
    const users = messages.filter((m) => isObj(m) && m.role === 'user');
    const latest = blocks(users.at(-1)).filter((b) => isObj(b) && b.type === 'text');
    return {
      api: 'anthropic',
      model: str(body.model),
      stream: body.stream === true,
      messageCount: messages.length,
      step: countRuns(messages, isAssistant),
      toolOutputs: afterLast(messages, isAssistant)
        .flatMap(blocks)
        .filter((b): b is Obj => isObj(b) && b.type === 'tool_result')
        .map((b) => contentText(b.content)),
      latestUserText: contentText(latest),
      tools: offeredTools(body.tools, 'input_schema'),
    };
  },

  write(res: ServerResponse, reply: MessageReply, meta: ReplyMeta): void {
    const content: Obj[] = [];
    if (reply.text !== '') content.push({ type: 'text', text: reply.text });
    for (const call of reply.calls) {
      content.push({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: JSON.parse(call.arguments) as unknown,
      });
    }
    const stopReason = reply.calls.length > 0 ? 'tool_use' : 'end_turn';
    const usage = {
      input_tokens: meta.inputTokens,
      output_tokens: meta.outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const message = {
      id: `msg_${meta.id}`,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    };
    if (!meta.stream) {
      sendJson(res, 200, message);
      return;
    }
    startSse(res);
    const event = (type: string, data: Obj) => sse(res, type, { type, ...data });
    event('message_start', {
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    });
    event('ping', {});
    content.forEach((block, index) => {
      if (block.type === 'text') {
        event('content_block_start', { index, content_block: { type: 'text', text: '' } });
        event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
      } else {
        event('content_block_start', { index, content_block: { ...block, input: {} } });
        const json = JSON.stringify(block.input);
        event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json } });
      }
      event('content_block_stop', { index });
    });
    event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: meta.outputTokens },
    });
    event('message_stop', {});
    res.end();
  },

  writeError(res: ServerResponse, status: number, message: string): void {
    sendJson(res, status, { type: 'error', error: { type: 'invalid_request_error', message } });
  },
};
