import type { ServerResponse } from 'node:http';
import type { ApiKind, ConversationView, ToolCallOut } from '../types.js';
import type { Obj } from '../wire.js';

export type MessageReply = { text: string; calls: ToolCallOut[] };

export type ReplyMeta = {
  id: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  stream: boolean;
  /** Unix seconds, for the APIs that carry a creation time. */
  created: number;
};

/** One wire API: how to read an agent's request and how to write the scripted answer. */
export interface ApiCodec {
  readonly api: ApiKind;
  /** Prefix of the ids of tool calls in this API. */
  readonly callIdPrefix: string;
  /** `url` is the request's URL, for APIs that carry the model or streaming in it (Gemini). */
  read(body: Obj, url: URL): ConversationView;
  write(res: ServerResponse, reply: MessageReply, meta: ReplyMeta): void;
  /** An error the client does not retry (4xx), in this API's error shape. */
  writeError(res: ServerResponse, status: number, message: string): void;
}
