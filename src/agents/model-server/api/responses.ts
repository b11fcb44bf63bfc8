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

/** Items the model produced; everything else (messages from user/developer, tool outputs) is input. */
function isModelItem(item: unknown): boolean {
  if (!isObj(item)) return false;
  if (item.type === 'message' || (item.type === undefined && item.role !== undefined))
    return item.role === 'assistant';
  return typeof item.type === 'string' && !item.type.endsWith('_output');
}

function isToolOutput(item: unknown): item is Obj {
  return isObj(item) && typeof item.type === 'string' && item.type.endsWith('_output');
}

/** OpenAI Responses API (`POST /v1/responses`), as codex speaks it with `wire_api = "responses"`. */
export const responsesCodec: ApiCodec = {
  api: 'responses',
  callIdPrefix: 'call_',

  read(body: Obj): ConversationView {
    const items =
      typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : asArray(body.input);
    const users = items.filter((i) => isObj(i) && i.role === 'user');
    return {
      api: 'responses',
      model: str(body.model),
      stream: body.stream === true,
      messageCount: items.length,
      step: countRuns(items, isModelItem),
      toolOutputs: afterLast(items, isModelItem)
        .filter(isToolOutput)
        .map((i) => contentText(i.output)),
      latestUserText: contentText(users.at(-1)),
      tools: offeredTools(body.tools, 'parameters'),
    };
  },

  write(res: ServerResponse, reply: MessageReply, meta: ReplyMeta): void {
    const output: Obj[] = [];
    if (reply.text !== '') {
      output.push({
        type: 'message',
        id: `msg_${meta.id}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: reply.text, annotations: [] }],
      });
    }
    for (const call of reply.calls) {
      output.push({
        type: 'function_call',
        id: `fc_${call.id}`,
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
        status: 'completed',
      });
    }
    const usage = {
      input_tokens: meta.inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: meta.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: meta.inputTokens + meta.outputTokens,
    };
    const response = (status: string, out: Obj[], withUsage: boolean): Obj => ({
      id: `resp_${meta.id}`,
      object: 'response',
      created_at: meta.created,
      status,
      model: meta.model,
      output: out,
      usage: withUsage ? usage : null,
    });
    if (!meta.stream) {
      sendJson(res, 200, response('completed', output, true));
      return;
    }
    startSse(res);
    let seq = 0;
    const event = (type: string, data: Obj) => sse(res, type, { type, sequence_number: seq++, ...data });
    event('response.created', { response: response('in_progress', [], false) });
    event('response.in_progress', { response: response('in_progress', [], false) });
    output.forEach((item, index) => {
      if (item.type === 'message') {
        const itemId = item.id;
        event('response.output_item.added', {
          output_index: index,
          item: { ...item, status: 'in_progress', content: [] },
        });
        const part = { type: 'output_text', text: '', annotations: [] };
        event('response.content_part.added', {
          item_id: itemId,
          output_index: index,
          content_index: 0,
          part,
        });
        event('response.output_text.delta', {
          item_id: itemId,
          output_index: index,
          content_index: 0,
          delta: reply.text,
        });
        event('response.output_text.done', {
          item_id: itemId,
          output_index: index,
          content_index: 0,
          text: reply.text,
        });
        event('response.content_part.done', {
          item_id: itemId,
          output_index: index,
          content_index: 0,
          part: { ...part, text: reply.text },
        });
      } else {
        event('response.output_item.added', {
          output_index: index,
          item: { ...item, status: 'in_progress', arguments: '' },
        });
        event('response.function_call_arguments.delta', {
          item_id: item.id,
          output_index: index,
          delta: item.arguments,
        });
        event('response.function_call_arguments.done', {
          item_id: item.id,
          output_index: index,
          arguments: item.arguments,
        });
      }
      event('response.output_item.done', { output_index: index, item });
    });
    event('response.completed', { response: response('completed', output, true) });
    res.end();
  },

  writeError(res: ServerResponse, status: number, message: string): void {
    sendJson(res, status, {
      error: { message, type: 'invalid_request_error', param: null, code: 'agentguard_script' },
    });
  },
};
