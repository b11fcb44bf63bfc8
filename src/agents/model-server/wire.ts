import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OfferedTool } from './types.js';

/** Approximate token count used everywhere (requests, responses, usage fields): characters / 4. */
export function approxTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** The text of a message content in any of the three APIs: a string, or a list of parts. */
export function contentText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v))
    return v
      .map(contentText)
      .filter((t) => t !== '')
      .join('\n');
  if (isObj(v)) {
    if (typeof v.text === 'string') return v.text;
    if (v.content !== undefined) return contentText(v.content);
    if (typeof v.output === 'string') return v.output;
  }
  return '';
}

/** Count runs of consecutive items for which `isModel` holds: the model turns of a conversation. */
export function countRuns<T>(items: readonly T[], isModel: (item: T) => boolean): number {
  let runs = 0;
  let inRun = false;
  for (const item of items) {
    const model = isModel(item);
    if (model && !inRun) runs++;
    inRun = model;
  }
  return runs;
}

/** Items after the last one for which `isModel` holds. */
export function afterLast<T>(items: readonly T[], isModel: (item: T) => boolean): T[] {
  let last = -1;
  items.forEach((item, i) => {
    if (isModel(item)) last = i;
  });
  return items.slice(last + 1);
}

export class BodyTooLarge extends Error {}

export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLarge(`request body over ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

/** One server-sent event; `event` null writes a data-only event (Chat Completions style). */
export function sse(res: ServerResponse, event: string | null, data: unknown): void {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  res.write(`${event === null ? '' : `event: ${event}\n`}data: ${payload}\n\n`);
}

/**
 * The tools a request offers, as {name, schema}. `unwrap` names the object holding name and schema
 * (Chat Completions nests them under `function`); `schemaKey` names the schema field.
 */
export function offeredTools(tools: unknown, schemaKey: string, unwrap?: string): OfferedTool[] {
  const out: OfferedTool[] = [];
  for (const t of asArray(tools)) {
    const def = unwrap ? (isObj(t) && isObj(t[unwrap]) ? t[unwrap] : null) : isObj(t) ? t : null;
    if (!def || typeof def.name !== 'string') continue;
    const schema = def[schemaKey];
    out.push({ name: def.name, schema: isObj(schema) ? schema : null });
  }
  return out;
}
