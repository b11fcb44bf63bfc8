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

/** OpenAI Chat Completions (`POST /v1/chat/completions`), streamed or not. */
export const chatCodec: ApiCodec = {
  api: 'chat',
  callIdPrefix: 'call_',

  read(body: Obj): ConversationView {
    const messages = asArray(body.messages);
    const users = messages.filter((m) => isObj(m) && m.role === 'user');
    return {
      api: 'chat',
      model: str(body.model),
      stream: body.stream === true,
      messageCount: messages.length,
      step: countRuns(messages, isAssistant),
      toolOutputs: afterLast(messages, isAssistant)
        .filter((m) => isObj(m) && m.role === 'tool')
        .map((m) => contentText(isObj(m) ? m.content : '')),
      latestUserText: contentText(isObj(users.at(-1)) ? (users.at(-1) as Obj).content : ''),
      tools: offeredTools(body.tools, 'parameters', 'function'),
    };
  },

  write(res: ServerResponse, reply: MessageReply, meta: ReplyMeta): void {
    const finish = reply.calls.length > 0 ? 'tool_calls' : 'stop';
    const toolCalls = reply.calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
    const usage = {
      prompt_tokens: meta.inputTokens,
      completion_tokens: meta.outputTokens,
      total_tokens: meta.inputTokens + meta.outputTokens,
    };
    const base = { id: `chatcmpl-${meta.id}`, created: meta.created, model: meta.model };
    if (!meta.stream) {
      const message: Obj = { role: 'assistant', content: reply.text === '' ? null : reply.text };
      if (toolCalls.length > 0) message.tool_calls = toolCalls;
      sendJson(res, 200, {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
        usage,
      });
      return;
    }
    startSse(res);
    const chunk = (delta: Obj, finishReason: string | null, extra: Obj = {}) =>
      sse(res, null, {
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
        ...extra,
      });
    chunk({ role: 'assistant', content: '' }, null);
    if (reply.text !== '') chunk({ content: reply.text }, null);
    toolCalls.forEach((call, index) => {
      chunk(
        {
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
          ],
        },
        null,
      );
      chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }, null);
    });
    // Usage rides on the final chunk as well as on the usage-only chunk clients ask for.
    chunk({}, finish, { usage });
    sse(res, null, { ...base, object: 'chat.completion.chunk', choices: [], usage });
    sse(res, null, '[DONE]');
    res.end();
  },

  writeError(res: ServerResponse, status: number, message: string): void {
    sendJson(res, status, {
      error: { message, type: 'invalid_request_error', param: null, code: 'agentguard_script' },
    });
  },
};
