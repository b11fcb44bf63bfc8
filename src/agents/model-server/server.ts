import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage, SetupError } from '../../errors.js';
import { type Decision, ScriptPlayer } from './player.js';
import { cut, ModelRecorder } from './records.js';
import { buildReply } from './reply.js';
import { answerProbe, type RecordTail, routeOf } from './routes.js';
import type { ConversationView, ModelRecord, Trajectory } from './types.js';
import { approxTokens, BodyTooLarge, isObj, type Obj, readBody, sendJson } from './wire.js';

export type ModelServerOptions = {
  trajectory: Trajectory;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Loopback by default; the agent runs on the same machine. */
  host?: string;
  /** Append every record to this JSONL file (e.g. `evidence/model.jsonl`). */
  recordFile?: string | null;
  /** Epoch milliseconds that record `ts` counts from; default the start time. */
  timeOrigin?: number;
  /** Overrides the trajectory's `loop_limit`. */
  loopLimit?: number;
  /** Model names listed by `GET /v1/models`. */
  models?: string[];
  maxBodyBytes?: number;
};

export type ModelServerAddress = { port: number; url: string };

/**
 * A loopback HTTP server that plays the model's side of an agent run from a trajectory, speaking
 * the OpenAI Responses, OpenAI Chat Completions, Anthropic Messages and Gemini APIs. Lifecycle:
 * `start()` → agent runs → `stop()` returns every record.
 */
export class ModelServer {
  private server: Server | null = null;
  private readonly player: ScriptPlayer;
  private readonly recorder: ModelRecorder;
  private seq = 0;
  private origin = 0;
  private addr: ModelServerAddress | null = null;

  constructor(private readonly opts: ModelServerOptions) {
    this.player = new ScriptPlayer(opts.trajectory, opts.loopLimit ?? opts.trajectory.loopLimit);
    this.recorder = new ModelRecorder(opts.recordFile ?? null);
  }

  get records(): readonly ModelRecord[] {
    return this.recorder.records;
  }

  get address(): ModelServerAddress | null {
    return this.addr;
  }

  /** Error appending to the record file, if any (the in-memory records are complete). */
  get recordWriteError(): string | null {
    return this.recorder.writeError;
  }

  async start(): Promise<ModelServerAddress> {
    if (this.addr) return this.addr;
    this.origin = this.opts.timeOrigin ?? Date.now();
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent)
          sendJson(res, 400, { error: { message: `agentguard model-server: ${String(err)}` } });
        else res.end();
      });
    });
    server.keepAliveTimeout = 1000;
    const host = this.opts.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          new SetupError(
            `the scripted model server cannot listen on ${host}:${this.opts.port ?? 0} (${err.code ?? err.message}). Fix: pick another --port or free that one.`,
            { cause: err },
          ),
        ),
      );
      server.listen(this.opts.port ?? 0, host, () => resolve());
    });
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    const shownHost = host.includes(':') ? `[${host}]` : host;
    this.addr = { port, url: `http://${shownHost}:${port}` };
    return this.addr;
  }

  async stop(): Promise<ModelRecord[]> {
    const server = this.server;
    this.server = null;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    return [...this.recorder.records];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://model-server.invalid');
    const route = routeOf(method, url.pathname);
    const base = {
      seq: ++this.seq,
      ts: started - this.origin,
      at: started,
      method,
      path: `${url.pathname}${url.search}`,
      turn: null,
      turn_id: null,
      branch: null,
      request: null,
    };
    const finish = (rec: RecordTail) =>
      this.recorder.add({ ...base, ...rec, duration_ms: Date.now() - started });
    const empty = { text: '', tool_calls: [], output_tokens: 0 };

    let raw: string;
    try {
      raw = await readBody(req, this.opts.maxBodyBytes ?? 64 * 1024 * 1024);
    } catch (err) {
      const status = err instanceof BodyTooLarge ? 413 : 400;
      const message = `agentguard model-server: ${errorMessage(err)}`;
      if (!res.destroyed) sendJson(res, status, { error: { message } });
      finish({ api: 'other', status, kind: 'error', response: { ...empty, stop: 'error', error: message } });
      return;
    }

    if (route.kind !== 'chat-api') {
      finish(answerProbe(route, method, url.pathname, raw, res, this.opts.models ?? ['scripted']));
      return;
    }

    const body = parseJson(raw);
    const codec = route.codec;
    if (!body) {
      const message = 'agentguard model-server: the request body is not a JSON object';
      codec.writeError(res, 400, message);
      finish({
        api: codec.api,
        status: 400,
        kind: 'error',
        response: { ...empty, stop: 'error', error: message },
      });
      return;
    }

    const view = codec.read(body, url);
    const decision = this.player.decide(view);
    const reply = buildReply(decision, view, `${codec.callIdPrefix}${base.seq}`);
    const request = requestSummary(view, raw.length);
    const turnInfo = turnFields(decision);
    if (reply.kind === 'error') {
      codec.writeError(res, reply.status, reply.message);
      const kind = decision.kind === 'loop' || decision.kind === 'refused' ? decision.kind : 'error';
      finish({
        api: codec.api,
        status: reply.status,
        kind,
        ...turnInfo,
        request,
        response: { ...empty, stop: 'error', error: reply.message },
      });
      return;
    }
    const outputChars =
      reply.text.length + reply.calls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
    const outputTokens = Math.max(1, approxTokens(outputChars));
    codec.write(res, reply, {
      id: String(base.seq),
      model: view.model ?? 'scripted',
      inputTokens: request.input_tokens,
      outputTokens,
      stream: view.stream,
      created: Math.floor(started / 1000),
    });
    finish({
      api: codec.api,
      status: 200,
      kind:
        decision.kind === 'turn' || decision.kind === 'retry' || decision.kind === 'side'
          ? decision.kind
          : 'exhausted',
      ...turnInfo,
      request,
      response: {
        text: reply.text,
        tool_calls: reply.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
        output_tokens: outputTokens,
        stop: reply.calls.length > 0 ? 'tool_use' : 'end_turn',
      },
    });
  }
}

function parseJson(raw: string): Obj | null {
  try {
    const v: unknown = JSON.parse(raw);
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

function requestSummary(view: ConversationView, chars: number): NonNullable<ModelRecord['request']> {
  return {
    model: view.model,
    stream: view.stream,
    messages: view.messageCount,
    step: view.step,
    tools_offered: view.tools.map((t) => t.name),
    tool_outputs: view.toolOutputs.map((o) => cut(o)),
    input_tokens: approxTokens(chars),
  };
}

function turnFields(d: Decision): Pick<ModelRecord, 'turn' | 'turn_id' | 'branch'> {
  if (d.kind === 'turn' || d.kind === 'retry')
    return { turn: d.turn.index, turn_id: d.turn.id, branch: d.branch };
  if (d.kind === 'exhausted' && d.turn) return { turn: d.turn.index, turn_id: d.turn.id, branch: null };
  return { turn: null, turn_id: null, branch: null };
}
