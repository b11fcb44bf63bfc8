import type { ClientRequest } from 'node:http';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { BudgetConfig, Pricing } from '../../config/schema.js';
import { SetupError } from '../../errors.js';
import type { WireUsage } from '../../evidence/types.js';
import { decodeBody, MAX_USAGE_BODY, usageInBody } from '../../observe/proxy/wire-usage.js';
import { cut, ModelRecorder } from '../model-server/records.js';
import { routeOf } from '../model-server/routes.js';
import type { ApiKind, ModelRecord } from '../model-server/types.js';
import { BodyTooLarge, isObj, type Obj, readBody, sendJson } from '../model-server/wire.js';
import { type AnswerContent, answerContent } from './answer-content.js';
import { BudgetMeter, type Spent } from './budget-meter.js';
import { swapKey } from './credentials.js';

export type ModelRelayOptions = {
  /** The provider's root URL (`https://api.openai.com`); a request keeps its own path under it. */
  provider: string;
  /** The real key, from agentguard's environment: sent only to `provider`, never to the agent. */
  realKey: string;
  /** The run's stand-in key: the only key the relay accepts. */
  standIn: string;
  /** The model name sent in place of the one the agent asks for. */
  model?: string;
  budget?: BudgetConfig;
  pricing?: Pricing;
  /** Append every record to this JSONL file (`evidence/model.jsonl`). */
  recordFile?: string | null;
  timeOrigin?: number;
  /** Certificates trusted beside the system's (PEM), for a provider behind the operator's own CA. */
  ca?: string;
  maxBodyBytes?: number;
};

/** Response headers never passed back: hop-by-hop ones. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'trailer',
  'proxy-connection',
]);

/**
 * The model through agentguard: a loopback HTTP server the agent reaches as the run's model host
 * (through the egress proxy), forwarding each model request over HTTPS to the real provider with
 * the real key in place of the run's stand-in, reading the provider's exact usage from each answer
 * and refusing, in the request's own API, a request past the run's budget. Lifecycle: `start()` →
 * the agent runs → `stop()` returns every record.
 */
export class ModelRelay {
  private server: Server | null = null;
  private readonly recorder: ModelRecorder;
  private readonly meter: BudgetMeter;
  private readonly provider: URL;
  private seq = 0;
  private origin = 0;
  private readonly inflight = new Set<ClientRequest>();

  constructor(private readonly opts: ModelRelayOptions) {
    this.recorder = new ModelRecorder(opts.recordFile ?? null);
    this.meter = new BudgetMeter(opts.budget, opts.pricing);
    this.provider = new URL(opts.provider);
  }

  get records(): readonly ModelRecord[] {
    return this.recorder.records;
  }

  get spent(): Spent {
    return this.meter.totals;
  }

  async start(): Promise<{ port: number }> {
    this.origin = this.opts.timeOrigin ?? Date.now();
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 400, { error: { message: `agentguard relay: ${String(err)}` } });
        else res.destroy();
      });
    });
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          new SetupError(`the model relay cannot listen on loopback (${err.code ?? err.message})`, {
            cause: err,
          }),
        ),
      );
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    return { port: (server.address() as AddressInfo).port };
  }

  async stop(): Promise<ModelRecord[]> {
    const server = this.server;
    this.server = null;
    for (const up of this.inflight) up.destroy();
    if (server)
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    return [...this.recorder.records];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://relay.invalid');
    const route = routeOf(method, url.pathname);
    const codec = route.kind === 'chat-api' ? route.codec : null;
    const api = codec
      ? codec.api
      : route.kind === 'count_tokens'
        ? 'count_tokens'
        : route.kind === 'models'
          ? 'models'
          : 'other';
    const base = {
      seq: ++this.seq,
      ts: started - this.origin,
      at: started,
      method,
      path: `${url.pathname}${redactedSearch(url.searchParams)}`,
      api,
      turn: null,
      turn_id: null,
      branch: null,
    } as const;
    const empty = { text: '', tool_calls: [], output_tokens: 0 };
    let request: ModelRecord['request'] = null;
    const finish = (rec: Pick<ModelRecord, 'status' | 'kind' | 'response'> & Partial<ModelRecord>) =>
      this.recorder.add({ ...base, request, ...rec, duration_ms: Date.now() - started });
    // The request's own API's error shape (a 4xx the clients do not retry).
    const refuse = (status: number, kind: ModelRecord['kind'], message: string) => {
      if (codec) codec.writeError(res, status, message);
      else if (url.pathname.startsWith('/v1beta/'))
        sendJson(res, status, { error: { code: status, message, status: 'INVALID_ARGUMENT' } });
      else sendJson(res, status, { type: 'error', error: { type: 'invalid_request_error', message } });
      finish({ status, kind, response: { ...empty, stop: 'error', error: message } });
    };

    let raw: string;
    try {
      raw = await readBody(req, this.opts.maxBodyBytes ?? 64 * 1024 * 1024);
    } catch (err) {
      refuse(err instanceof BodyTooLarge ? 413 : 400, 'error', `agentguard relay: ${(err as Error).message}`);
      return;
    }
    // Only the model endpoints: the stand-in key is worth nothing on the provider's other endpoints.
    if (route.kind === 'not-found' || route.kind === 'hello') {
      refuse(404, 'not-found', `agentguard relay: no model endpoint ${method} ${url.pathname}`);
      return;
    }
    const body = parseObject(raw);
    if (codec && body) {
      const view = codec.read(body, url);
      request = {
        model: view.model,
        stream: view.stream,
        messages: view.messageCount,
        step: view.step,
        tools_offered: view.tools.map((t) => t.name),
        tool_outputs: view.toolOutputs.map((o) => cut(o)),
        input_tokens: 0,
      };
    }
    const swapped = swapKey(req.headers, url.searchParams, this.opts.standIn, this.opts.realKey);
    if (!swapped) {
      refuse(401, 'refused', "agentguard relay: the request does not carry this run's key");
      return;
    }
    // Token counts and model lists cost nothing; every model turn is counted against the budget.
    if (codec) {
      const over = this.meter.take();
      if (over !== null) {
        refuse(400, 'budget', `agentguard budget: ${over}; the run's model budget is spent`);
        return;
      }
    }
    const model = this.opts.model;
    let pathname = url.pathname;
    let sent = raw;
    if (model !== undefined) {
      pathname = pathname.replace(/\/models\/[^/:]+(?=:)/, `/models/${encodeURIComponent(model)}`);
      if (body && typeof body.model === 'string') sent = JSON.stringify({ ...body, model });
    }
    const prefix = this.provider.pathname.replace(/\/+$/, '');
    // A provider named with its version (`…/v1`) and a client that adds it too: one `/v1`.
    const rest = prefix.endsWith('/v1') && pathname.startsWith('/v1/') ? pathname.slice(3) : pathname;
    const target = new URL(`${this.provider.origin}${prefix}${rest}${swapped.search}`);
    const answer = await this.forward(target, method, swapped.headers, sent, res, codec?.api ?? null);
    if (codec) {
      if (answer.status === null) this.meter.release();
      else this.meter.settle(answer.usage);
    }
    if (answer.status === null) {
      const message = `agentguard relay: ${this.provider.host} could not be reached (${answer.error})`;
      if (!res.headersSent) refuse(400, 'error', message);
      else finish({ status: 400, kind: 'error', response: { ...empty, stop: 'error', error: message } });
      return;
    }
    if (request && answer.usage) request = { ...request, input_tokens: answer.usage.input_tokens };
    finish({
      status: answer.status,
      kind: codec ? 'relayed' : 'probe',
      provider_status: answer.status,
      usage: answer.usage,
      response: {
        ...empty,
        ...(answer.content ?? {}),
        output_tokens: answer.usage?.output_tokens ?? 0,
        stop: answer.status >= 400 ? 'error' : answer.content?.tool_calls.length ? 'tool_use' : 'end_turn',
        ...(answer.status >= 400 ? { error: cut(answer.errorText ?? '', 500) } : {}),
      },
    });
  }

  /**
   * Send the request to the provider and stream its answer back, keeping a copy (bounded) to read
   * the usage from. An error answer is passed whole, with the real key cut out should the provider
   * quote it.
   */
  private forward(
    target: URL,
    method: string,
    headers: Record<string, string>,
    body: string,
    res: ServerResponse,
    api: ApiKind | null,
  ): Promise<{
    status: number | null;
    usage: WireUsage | null;
    content?: AnswerContent;
    error?: string;
    errorText?: string;
  }> {
    const key = this.opts.realKey;
    return new Promise((resolve) => {
      const up = httpsRequest(
        target,
        {
          method,
          headers: { ...headers, host: target.host, 'content-length': String(Buffer.byteLength(body)) },
          ...(this.opts.ca ? { ca: [...rootCertificates, this.opts.ca] } : {}),
          timeout: 600_000,
        },
        (answer) => {
          const status = answer.statusCode ?? 502;
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(answer.headers))
            if (v !== undefined && !HOP.has(k) && !(status >= 400 && k === 'content-length')) out[k] = v;
          const chunks: Buffer[] = [];
          let size = 0;
          if (status < 400) res.writeHead(status, out);
          answer.on('data', (c: Buffer) => {
            if (size + c.length <= MAX_USAGE_BODY) chunks.push(c);
            size += c.length;
            if (status < 400 && !res.destroyed) res.write(c);
          });
          answer.on('end', () => {
            const whole = Buffer.concat(chunks);
            const text = decodeBody(answer.headers['content-encoding'], whole);
            const type = String(answer.headers['content-type'] ?? '');
            if (status >= 400) {
              const shown = (text ?? '').split(key).join('[REDACTED:relay-key]');
              res.writeHead(status, { ...out, 'content-length': String(Buffer.byteLength(shown)) });
              res.end(shown);
              resolve({ status, usage: null, errorText: shown });
              return;
            }
            if (!res.destroyed) res.end();
            resolve({
              status,
              usage: text === null ? null : usageInBody(type, text),
              ...(api && text !== null ? { content: answerContent(api, type, text) } : {}),
            });
          });
          answer.on('error', (err) => {
            res.destroy();
            resolve({ status, usage: null, error: err.message });
          });
        },
      );
      up.on('timeout', () => up.destroy(new Error('no answer in 600 s')));
      up.on('error', (err: NodeJS.ErrnoException) =>
        resolve({ status: null, usage: null, error: err.code ?? err.message }),
      );
      // An agent that hangs up once it has what it needs (codex after `response.completed`) must not
      // cut the provider's answer short: the rest is read for its usage, which the provider bills.
      // stop() ends what is still in flight.
      res.on('error', () => {});
      this.inflight.add(up);
      up.on('close', () => this.inflight.delete(up));
      up.end(body);
    });
  }
}

function parseObject(raw: string): Obj | null {
  try {
    const v: unknown = JSON.parse(raw);
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

/** The query as recorded: a key in it (Gemini's `?key=`) is the stand-in, but is not kept either. */
function redactedSearch(q: URLSearchParams): string {
  const copy = new URLSearchParams(q);
  if (copy.has('key')) copy.set('key', '[REDACTED]');
  const s = copy.toString();
  return s === '' ? '' : `?${s}`;
}
