import type { ServerResponse } from 'node:http';
import type { ConversationView, OfferedTool } from '../types.js';
import { afterLast, asArray, countRuns, isObj, type Obj, sendJson, sse, startSse } from '../wire.js';
import type { ApiCodec, MessageReply, ReplyMeta } from './codec.js';

/** `…/models/MODEL:METHOD`, the Gemini API's resource path (after the version prefix). */
const MODEL_METHOD = /\/models\/([^/:]+):([A-Za-z]+)$/;

const isModel = (c: unknown): boolean => isObj(c) && c.role === 'model';

function parts(content: unknown): Obj[] {
  return isObj(content) ? asArray(content.parts).filter(isObj) : [];
}

/** A function response as text: its `output` (gemini-cli's shape), `error`, or the JSON of it all. */
function responseText(part: Obj): string {
  const fr = isObj(part.functionResponse) ? part.functionResponse : {};
  const response = fr.response;
  const texts = parts(fr)
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .filter((t) => t !== '');
  let main: string;
  if (typeof response === 'string') main = response;
  else if (isObj(response) && typeof response.output === 'string') main = response.output;
  else if (isObj(response) && typeof response.error === 'string') main = response.error;
  else main = response === undefined ? '' : JSON.stringify(response);
  return [main, ...texts].filter((t) => t !== '').join('\n');
}

/** `tools[].functionDeclarations[]`, with the schema from `parametersJsonSchema` or `parameters`. */
function declaredTools(tools: unknown): OfferedTool[] {
  const out: OfferedTool[] = [];
  for (const group of asArray(tools)) {
    if (!isObj(group)) continue;
    for (const decl of asArray(group.functionDeclarations)) {
      if (!isObj(decl) || typeof decl.name !== 'string') continue;
      const schema = isObj(decl.parametersJsonSchema) ? decl.parametersJsonSchema : decl.parameters;
      out.push({ name: decl.name, schema: isObj(schema) ? schema : null });
    }
  }
  return out;
}

/** Google's status names for the 4xx codes the server sends. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
};

/** The Gemini API's error body, `{error: {code, message, status}}`. */
export function geminiError(status: number, message: string): Obj {
  return { error: { code: status, message, status: STATUS_NAMES[status] ?? 'FAILED_PRECONDITION' } };
}

/**
 * The Gemini API (`POST /v1beta/models/MODEL:generateContent`, and `:streamGenerateContent?alt=sse`
 * for server-sent events), as the `@google/genai` SDK inside gemini-cli speaks it. The model name and
 * whether to stream come from the URL, not the body.
 */
export const geminiCodec: ApiCodec = {
  api: 'gemini',
  callIdPrefix: 'fc_',

  read(body: Obj, url: URL): ConversationView {
    const target = MODEL_METHOD.exec(url.pathname);
    const contents = asArray(body.contents);
    const userTexts = contents
      .filter((c) => isObj(c) && c.role !== 'model')
      .map((c) =>
        parts(c)
          .filter((p) => typeof p.text === 'string' && p.thought !== true)
          .map((p) => p.text as string),
      )
      .filter((texts) => texts.length > 0);
    return {
      api: 'gemini',
      model: target ? decodeURIComponent(target[1] ?? '') : null,
      stream: target?.[2] === 'streamGenerateContent',
      messageCount: contents.length,
      step: countRuns(contents, isModel),
      toolOutputs: afterLast(contents, isModel)
        .flatMap(parts)
        .filter((p) => isObj(p.functionResponse))
        .map(responseText),
      latestUserText: (userTexts.at(-1) ?? []).join('\n'),
      tools: declaredTools(body.tools),
    };
  },

  write(res: ServerResponse, reply: MessageReply, meta: ReplyMeta): void {
    const textParts: Obj[] = reply.text === '' ? [] : [{ text: reply.text }];
    const callParts: Obj[] = reply.calls.map((c) => ({
      functionCall: { id: c.id, name: c.name, args: JSON.parse(c.arguments) as unknown },
    }));
    const usageMetadata = {
      promptTokenCount: meta.inputTokens,
      candidatesTokenCount: meta.outputTokens,
      totalTokenCount: meta.inputTokens + meta.outputTokens,
    };
    const chunk = (partsOut: Obj[], last: boolean): Obj => ({
      candidates: [
        {
          content: { role: 'model', parts: partsOut },
          ...(last ? { finishReason: 'STOP' } : {}),
          index: 0,
        },
      ],
      usageMetadata,
      modelVersion: meta.model,
      responseId: `resp_${meta.id}`,
    });
    const all = [...textParts, ...callParts];
    if (!meta.stream) {
      sendJson(res, 200, chunk(all.length > 0 ? all : [{ text: '' }], true));
      return;
    }
    // Text first, then the calls with the finish reason, as the real API streams a turn.
    startSse(res);
    if (textParts.length > 0 && callParts.length > 0) sse(res, null, chunk(textParts, false));
    const rest = callParts.length > 0 ? callParts : textParts;
    sse(res, null, chunk(rest.length > 0 ? rest : [{ text: '' }], true));
    res.end();
  },

  writeError(res: ServerResponse, status: number, message: string): void {
    sendJson(res, status, geminiError(status, message));
  },
};
