import { documents } from '../../observe/proxy/wire-usage.js';
import type { ApiKind } from '../model-server/types.js';

/** What a provider's answer said: its text and the tool calls it made, as the agent received them. */
export type AnswerContent = { text: string; tool_calls: { name: string; arguments: string }[] };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const json = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? {}));

/**
 * The text and tool calls of a provider's answer in one of the four APIs, streamed (server-sent
 * events, put back together) or whole; so a relayed turn is recorded as a scripted one is, and the
 * report can join each tool call with what ran. Pure; empty for a body it cannot read.
 */
export function answerContent(api: ApiKind, contentType: string, body: string): AnswerContent {
  const docs = documents(contentType, body)
    .map(obj)
    .filter((d): d is Obj => d !== null);
  switch (api) {
    case 'responses':
      return responses(docs);
    case 'chat':
      return chat(docs);
    case 'anthropic':
      return anthropic(docs);
    case 'gemini':
      return gemini(docs);
  }
}

/** The Responses API: the whole response, or in a stream `response.completed`'s (else the done items). */
function responses(docs: Obj[]): AnswerContent {
  const done = docs.find((d) => d.type === 'response.completed');
  const response = obj(done?.response) ?? docs.find((d) => d.object === 'response') ?? null;
  const items = response
    ? arr(response.output)
    : docs.filter((d) => d.type === 'response.output_item.done').map((d) => d.item);
  const out: AnswerContent = { text: '', tool_calls: [] };
  for (const item of items.map(obj)) {
    if (item?.type === 'message')
      out.text += arr(item.content)
        .map((c) => str(obj(c)?.text))
        .join('');
    if (item?.type === 'function_call')
      out.tool_calls.push({ name: str(item.name), arguments: json(item.arguments) });
  }
  return out;
}

/** Chat Completions: `choices[0].message`, or the deltas of a stream, tool calls joined by index. */
function chat(docs: Obj[]): AnswerContent {
  let text = '';
  const calls = new Map<number, { name: string; arguments: string }>();
  for (const d of docs) {
    const choice = obj(arr(d.choices)[0]);
    const part = obj(choice?.message) ?? obj(choice?.delta);
    if (!part) continue;
    text += str(part.content);
    for (const [i, raw] of arr(part.tool_calls).entries()) {
      const tc = obj(raw);
      const index = typeof tc?.index === 'number' ? tc.index : i;
      const fn = obj(tc?.function);
      const call = calls.get(index) ?? { name: '', arguments: '' };
      call.name += str(fn?.name);
      call.arguments += str(fn?.arguments);
      calls.set(index, call);
    }
  }
  return { text, tool_calls: [...calls.values()] };
}

/** Anthropic Messages: the `content` blocks, or a stream's blocks put back together by index. */
function anthropic(docs: Obj[]): AnswerContent {
  const whole = docs.find((d) => d.type === 'message' && Array.isArray(d.content));
  const blocks = new Map<number, { type: string; name: string; text: string }>();
  if (whole)
    arr(whole.content).forEach((b, i) => {
      const block = obj(b);
      blocks.set(i, {
        type: str(block?.type),
        name: str(block?.name),
        text: block?.type === 'tool_use' ? json(block.input) : str(block?.text),
      });
    });
  for (const d of docs) {
    const index = typeof d.index === 'number' ? d.index : -1;
    if (d.type === 'content_block_start') {
      const b = obj(d.content_block);
      blocks.set(index, { type: str(b?.type), name: str(b?.name), text: str(b?.text) });
    } else if (d.type === 'content_block_delta') {
      const b = blocks.get(index);
      const delta = obj(d.delta);
      if (b) b.text += str(delta?.text) + str(delta?.partial_json);
    }
  }
  const list = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
  return {
    text: list
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join(''),
    tool_calls: list
      .filter((b) => b.type === 'tool_use')
      .map((b) => ({ name: b.name, arguments: b.text === '' ? '{}' : b.text })),
  };
}

/** Gemini: the parts of `candidates[0].content` over every chunk. */
function gemini(docs: Obj[]): AnswerContent {
  const out: AnswerContent = { text: '', tool_calls: [] };
  for (const d of docs)
    for (const p of arr(obj(obj(arr(d.candidates)[0])?.content)?.parts).map(obj)) {
      if (!p) continue;
      if (typeof p.text === 'string' && p.thought !== true) out.text += p.text;
      const fc = obj(p.functionCall);
      if (fc) out.tool_calls.push({ name: str(fc.name), arguments: json(fc.args) });
    }
  return out;
}
