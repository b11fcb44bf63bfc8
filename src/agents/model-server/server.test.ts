import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer } from './index.js';
import { summarizeRecords } from './records.js';
import type { ModelServer } from './server.js';
import {
  anthropicRequest,
  anthropicToolRound,
  chatRequest,
  inline,
  post,
  responsesRequest,
  responsesToolRound,
} from './test-client.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const running: ModelServer[] = [];
const temps: string[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function serve(script: Parameters<typeof startModelServer>[0]['script'], extra = {}) {
  const started = await startModelServer({ script, ...extra });
  running.push(started.server);
  return started;
}

type Obj = Record<string, unknown>;
const dataOf = (events: { event: string | null; data: unknown }[], type: string) =>
  events.filter((e) => e.event === type).map((e) => e.data as Obj);

describe('OpenAI Responses API (codex)', () => {
  it('streams the scripted turns as exec_command calls and records what the agent sent back', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-model-'));
    temps.push(dir);
    const recordFile = path.join(dir, 'evidence', 'model.jsonl');
    const { url, server } = await serve(path.join(FIXTURES, 'hello.yaml'), { recordFile });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const first = await post(`${url}/v1/responses`, responsesRequest([]));
    expect(first.status).toBe(200);
    expect(first.events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const items = dataOf(first.events, 'response.output_item.done').map((d) => d.item as Obj);
    expect(items[0]).toMatchObject({ type: 'message', role: 'assistant' });
    expect(items[1]).toMatchObject({
      type: 'function_call',
      name: 'exec_command',
      arguments: '{"cmd":"echo hi > hello.txt"}',
    });
    const completed = dataOf(first.events, 'response.completed')[0]?.response as Obj;
    expect(completed.usage).toMatchObject({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
    });

    const callId = String(items[1]?.call_id);
    const second = await post(
      `${url}/v1/responses`,
      responsesRequest(responsesToolRound(callId, 'echo hi > hello.txt', 'exit 0')),
    );
    const call2 = dataOf(second.events, 'response.output_item.done')[0]?.item as Obj;
    expect(JSON.parse(String(call2.arguments))).toEqual({ cmd: 'cat hello.txt' });
    const third = await post(
      `${url}/v1/responses`,
      responsesRequest([
        ...responsesToolRound(callId, 'echo hi > hello.txt', 'exit 0'),
        ...responsesToolRound(String(call2.call_id), 'cat hello.txt', 'hi\n'),
      ]),
    );
    expect(dataOf(third.events, 'response.output_text.delta')[0]?.delta).toBe('done');

    const records = await server.stop();
    expect(records.map((r) => [r.kind, r.turn, r.request?.step, r.request?.tool_outputs])).toEqual([
      ['turn', 1, 0, []],
      ['turn', 2, 1, ['exit 0']],
      ['turn', 3, 2, ['hi\n']],
    ]);
    const lines = readFileSync(recordFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Obj);
    expect(lines).toEqual(JSON.parse(JSON.stringify(records)));
    // Token counts are chars/4 of the request body, so a longer history costs more.
    const tokens = records.map((r) => r.request?.input_tokens ?? 0);
    expect(tokens[0]).toBe(Math.ceil(JSON.stringify(responsesRequest([])).length / 4));
    expect(tokens[2]).toBeGreaterThan(tokens[1] ?? 0);
    expect(summarizeRecords(records)).toMatchObject({ requests: 3, turns: 3, problem: null });
  });

  it('answers non-streamed requests with a response object', async () => {
    const { url } = await serve(inline(['plain answer']));
    const reply = await post(`${url}/v1/responses`, { ...responsesRequest([]), stream: false });
    expect(reply.json).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'plain answer' }] }],
    });
  });
});

describe('Anthropic Messages API (claude-code)', () => {
  it('streams text and tool_use blocks with input_json_delta, then end_turn', async () => {
    const { url, server } = await serve(
      inline([
        { text: 'Looking.', calls: [{ shell: 'ls' }, { tool: 'Read', args: { file_path: 'a.md' } }] },
        { final: 'ok' },
      ]),
    );
    const first = await post(`${url}/v1/messages?beta=true`, anthropicRequest([]));
    expect(first.events.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const starts = dataOf(first.events, 'content_block_start').map((d) => d.content_block as Obj);
    expect(starts.map((b) => [b.type, b.name])).toEqual([
      ['text', undefined],
      ['tool_use', 'Bash'],
      ['tool_use', 'Read'],
    ]);
    const deltas = dataOf(first.events, 'content_block_delta').map((d) => d.delta as Obj);
    expect(deltas[1]).toEqual({ type: 'input_json_delta', partial_json: '{"command":"ls"}' });
    expect(deltas[2]).toEqual({ type: 'input_json_delta', partial_json: '{"file_path":"a.md"}' });
    expect(dataOf(first.events, 'message_delta')[0]?.delta).toMatchObject({ stop_reason: 'tool_use' });

    const second = await post(
      `${url}/v1/messages`,
      anthropicRequest([...anthropicToolRound(String(starts[1]?.id), 'ls', 'a.md')], false),
    );
    expect(second.json).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
    });
    expect(server.records.map((r) => [r.api, r.kind, r.turn, r.request?.tool_outputs])).toEqual([
      ['anthropic', 'turn', 1, []],
      ['anthropic', 'turn', 2, ['a.md']],
    ]);
  });

  it('answers count_tokens, the models list and the connectivity probe, and 404s the rest (recorded)', async () => {
    const { url, server } = await serve(inline(['x']));
    const count = await post(`${url}/v1/messages/count_tokens`, anthropicRequest([]));
    expect(count.json).toEqual({ input_tokens: Math.ceil(JSON.stringify(anthropicRequest([])).length / 4) });
    const models = (await (await fetch(`${url}/v1/models`)).json()) as Obj;
    expect(models).toMatchObject({ object: 'list', data: [{ id: 'scripted' }] });
    expect((await fetch(`${url}/api/hello`, { method: 'HEAD' })).status).toBe(200);
    const missing = await post(`${url}/v1/embeddings`, { input: 'x' });
    expect(missing.status).toBe(404);
    expect(server.records.map((r) => [r.api, r.kind, r.status, r.path])).toEqual([
      ['count_tokens', 'probe', 200, '/v1/messages/count_tokens'],
      ['models', 'probe', 200, '/v1/models'],
      ['other', 'probe', 200, '/api/hello'],
      ['other', 'not-found', 404, '/v1/embeddings'],
    ]);
  });
});

describe('OpenAI Chat Completions', () => {
  it('streams tool_calls deltas and usage, and answers non-streamed requests', async () => {
    const { url } = await serve(inline([{ shell: 'make test' }, { final: 'green' }]));
    const first = await post(`${url}/v1/chat/completions`, chatRequest([], true));
    expect(first.events.at(-1)?.data).toBe('[DONE]');
    const chunks = first.events.slice(0, -1).map((e) => e.data as Obj);
    const choices = chunks.flatMap((c) => c.choices as Obj[]);
    const toolDeltas = choices.flatMap((c) => ((c.delta as Obj).tool_calls as Obj[] | undefined) ?? []);
    expect(toolDeltas[0]).toMatchObject({
      index: 0,
      type: 'function',
      function: { name: 'shell', arguments: '' },
    });
    expect(toolDeltas.map((t) => (t.function as Obj).arguments).join('')).toBe('{"command":"make test"}');
    expect(choices.at(-1)?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)?.usage).toMatchObject({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
    });

    const id = String(toolDeltas[0]?.id);
    const history = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'shell', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: id, content: 'ok' },
    ];
    const second = await post(`${url}/v1/chat/completions`, chatRequest(history, false));
    expect(second.json).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'green' }, finish_reason: 'stop' }],
    });
  });
});

describe('playing a trajectory', () => {
  it('branches on the latest tool output and loops back with next', async () => {
    const { url, server } = await serve(path.join(FIXTURES, 'branch.yaml'));
    const r = (h: unknown[]) => post(`${url}/v1/messages`, anthropicRequest(h, false));
    const calls = (reply: { json: unknown }) =>
      ((reply.json as Obj).content as Obj[]).filter((b) => b.type === 'tool_use');
    const commandOf = (reply: { json: unknown }) => (calls(reply)[0]?.input as Obj | undefined)?.command;
    const textOf = (reply: { json: unknown }) =>
      ((reply.json as Obj).content as Obj[]).find((b) => b.type === 'text')?.text;

    let history: unknown[] = [];
    expect(commandOf(await r(history))).toBe('sh run-tests.sh');
    history = [...history, ...anthropicToolRound('t1', 'sh run-tests.sh', '1 FAIL, 2 passed')];
    const fix = await r(history);
    expect(textOf(fix)).toBe('A test fails; fixing it.');
    expect(commandOf(fix)).toBe('sh fix.sh');
    history = [...history, ...anthropicToolRound('t2', 'sh fix.sh', 'patched')];
    expect(commandOf(await r(history))).toBe('sh run-tests.sh');
    history = [...history, ...anthropicToolRound('t3', 'sh run-tests.sh', '3 Passed')];
    expect(textOf(await r(history))).toBe('All tests pass.');

    expect(server.records.map((x) => [x.turn, x.turn_id, x.branch])).toEqual([
      [1, 'test', null],
      [2, 'judge', 1],
      [1, 'test', null],
      [2, 'judge', 2],
    ]);
  });

  it('replays the same answer to a retried request and answers side requests without advancing', async () => {
    const { url, server } = await serve(
      inline({ side_reply: 'Fix the bug', turns: [{ shell: 'ls' }, { final: 'done' }] }),
    );
    const first = await post(`${url}/v1/messages`, anthropicRequest([], false));
    const retry = await post(`${url}/v1/messages`, anthropicRequest([], false));
    expect(retry.json).toMatchObject({
      content: [{ type: 'tool_use', name: 'Bash', input: { command: 'ls' } }],
    });
    // Same answer, fresh call ids (a retry replaces the answer the agent lost).
    const strip = (reply: { json: unknown }) =>
      ((reply.json as Obj).content as Obj[]).map(({ id: _, ...b }) => b);
    expect(strip(retry)).toEqual(strip(first));
    const title = await post(`${url}/v1/messages`, { ...anthropicRequest([], false), tools: [] });
    expect(title.json).toMatchObject({
      content: [{ type: 'text', text: 'Fix the bug' }],
      stop_reason: 'end_turn',
    });
    const next = await post(
      `${url}/v1/messages`,
      anthropicRequest(anthropicToolRound('a', 'ls', 'x'), false),
    );
    expect(next.json).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    expect(server.records.map((r) => [r.kind, r.turn])).toEqual([
      ['turn', 1],
      ['retry', 1],
      ['side', null],
      ['turn', 2],
    ]);
  });

  it('says "(trajectory exhausted)" once, then refuses with 400 so the agent stops', async () => {
    const { url, server } = await serve(inline([{ shell: 'ls' }]));
    await post(`${url}/v1/responses`, responsesRequest([]));
    const out = await post(`${url}/v1/responses`, responsesRequest(responsesToolRound('c1', 'ls', 'a')));
    expect(dataOf(out.events, 'response.output_text.delta')[0]?.delta).toBe('(trajectory exhausted)');
    const more = await post(
      `${url}/v1/responses`,
      responsesRequest([
        ...responsesToolRound('c1', 'ls', 'a'),
        { type: 'message', role: 'user', content: 'go on' },
      ]),
    );
    expect(more.status).toBe(400);
    expect((more.json as { error: Obj }).error.message).toMatch(/exhausted/);
    expect(server.records.map((r) => [r.kind, r.status])).toEqual([
      ['turn', 200],
      ['exhausted', 200],
      ['refused', 400],
    ]);
    expect(summarizeRecords(server.records).problem).toBe('(trajectory exhausted)');
  });

  it('stops an agent that sends the same request more than loop_limit times', async () => {
    const { url, server } = await serve(
      inline({ loop_limit: 2, turns: [{ shell: 'ls' }, { final: 'done' }] }),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await post(`${url}/v1/chat/completions`, chatRequest([], false))).status);
    expect(statuses).toEqual([200, 200, 400, 400]);
    expect(server.records.map((r) => r.kind)).toEqual(['turn', 'retry', 'loop', 'loop']);
    expect(summarizeRecords(server.records).problem).toMatch(
      /same request 3 times \(limit 2\); it is looping/,
    );
  });

  it('honours --loop-limit over the file, refuses a shell call when no shell tool is offered, and rejects bad JSON', async () => {
    const { url, server } = await serve(inline({ side_requests: 'never', turns: [{ shell: 'ls' }] }), {
      loopLimit: 1,
    });
    const noShell = await post(`${url}/v1/messages`, anthropicRequest([], false, [{ name: 'Read' }]));
    expect(noShell.status).toBe(400);
    expect(JSON.stringify(noShell.json)).toMatch(
      /turn 1 scripts a shell call, but the request offers no shell tool \(offered: Read\)/,
    );
    const bad = await post(`${url}/v1/messages`, '{not json');
    expect(bad.status).toBe(400);
    await post(`${url}/v1/messages`, anthropicRequest([], false, [{ name: 'Read' }]));
    expect(server.records.map((r) => [r.kind, r.status])).toEqual([
      ['error', 400],
      ['error', 400],
      ['loop', 400],
    ]);
  });
});
