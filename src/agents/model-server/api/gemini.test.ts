import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer } from '../index.js';
import type { ModelServer } from '../server.js';
import { geminiRequest, geminiToolRound, inline, post } from '../test-client.js';
import { geminiCodec } from './gemini.js';

type Obj = Record<string, unknown>;
const running: ModelServer[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function serve(script: Parameters<typeof startModelServer>[0]['script']) {
  const started = await startModelServer({ script });
  running.push(started.server);
  return started;
}

const STREAM = '/v1beta/models/gemini-2.5-flash:streamGenerateContent';
const PLAIN = '/v1beta/models/gemini-2.5-flash:generateContent';
const candidateOf = (chunk: unknown) => ((chunk as Obj).candidates as Obj[])[0] as Obj;
const partsOf = (chunk: unknown) => (candidateOf(chunk).content as Obj).parts as Obj[];

describe('Gemini API codec: reading a request', () => {
  it('takes model and streaming from the URL, tool outputs after the last model turn, and declared tools', () => {
    const body = geminiRequest([
      ...geminiToolRound('fc_1', 'ls', 'old output'),
      {
        role: 'model',
        parts: [
          { text: 'Two calls.' },
          { functionCall: { id: 'fc_2', name: 'run_shell_command', args: { command: 'cat a' } } },
          { functionCall: { id: 'fc_3', name: 'read_file', args: { file_path: 'b' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'fc_2', name: 'run_shell_command', response: { output: 'A' } } },
          {
            functionResponse: {
              id: 'fc_3',
              name: 'read_file',
              response: { error: 'no such file' },
              parts: [{ text: 'extra' }],
            },
          },
        ],
      },
    ]);
    body.tools = [
      ...(body.tools as unknown[]),
      {
        functionDeclarations: [
          { name: 'legacy', parameters: { type: 'OBJECT' } },
          { description: 'no name' },
        ],
      },
      { googleSearch: {} },
    ];
    const view = geminiCodec.read(body, new URL(`http://x${STREAM}?alt=sse`));
    expect(view).toMatchObject({
      api: 'gemini',
      model: 'gemini-2.5-flash',
      stream: true,
      messageCount: 5,
      step: 2,
      toolOutputs: ['A', 'no such file\nextra'],
      latestUserText: '<session_context>linux</session_context>\nfix it',
    });
    expect(view.tools.map((t) => [t.name, t.schema?.type])).toEqual([
      ['run_shell_command', 'object'],
      ['read_file', 'object'],
      ['legacy', 'OBJECT'],
    ]);
    const plain = geminiCodec.read(geminiRequest([]), new URL(`http://x${PLAIN}`));
    expect(plain).toMatchObject({
      stream: false,
      step: 0,
      toolOutputs: [],
      latestUserText: expect.any(String),
    });
  });

  it('falls back to the JSON of a function response without output or error', () => {
    const body = geminiRequest([
      { role: 'model', parts: [{ functionCall: { name: 'glob', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'glob', response: { files: ['a', 'b'] } } }] },
    ]);
    expect(geminiCodec.read(body, new URL(`http://x${PLAIN}`)).toolOutputs).toEqual(['{"files":["a","b"]}']);
  });
});

describe('Gemini API (gemini-cli) through the server', () => {
  it('streams run_shell_command calls as SSE chunks, then a final text with STOP and usage', async () => {
    const { url, server } = await serve(
      inline([
        { text: 'Listing.', shell: 'ls' },
        { calls: [{ tool: 'read_file', args: { file_path: 'a.md' } }] },
        'done',
      ]),
    );
    const first = await post(`${url}${STREAM}?alt=sse`, geminiRequest([]));
    expect(first.status).toBe(200);
    expect(first.events.map((e) => e.event)).toEqual([null, null]);
    expect(partsOf(first.events[0]?.data)).toEqual([{ text: 'Listing.' }]);
    expect(candidateOf(first.events[0]?.data).finishReason).toBeUndefined();
    const call = partsOf(first.events[1]?.data)[0]?.functionCall as Obj;
    expect(call).toMatchObject({ name: 'run_shell_command', args: { command: 'ls' } });
    expect(candidateOf(first.events[1]?.data)).toMatchObject({
      finishReason: 'STOP',
      content: { role: 'model' },
    });
    expect(first.events[1]?.data).toMatchObject({
      modelVersion: 'gemini-2.5-flash',
      usageMetadata: {
        promptTokenCount: expect.any(Number),
        candidatesTokenCount: expect.any(Number),
        totalTokenCount: expect.any(Number),
      },
    });

    const history = geminiToolRound(String(call.id), 'ls', 'a.md\n');
    const second = await post(`${url}${STREAM}?alt=sse`, geminiRequest(history));
    expect(second.events).toHaveLength(1);
    expect(partsOf(second.events[0]?.data)).toEqual([
      { functionCall: { id: expect.stringMatching(/^fc_/), name: 'read_file', args: { file_path: 'a.md' } } },
    ]);

    const third = await post(
      `${url}${STREAM}?alt=sse`,
      geminiRequest([...history, ...geminiToolRound('fc_x', 'cat a.md', '# A')]),
    );
    expect(partsOf(third.events[0]?.data)).toEqual([{ text: 'done' }]);
    expect(candidateOf(third.events[0]?.data).finishReason).toBe('STOP');

    const records = await server.stop();
    expect(records.map((r) => [r.api, r.kind, r.turn, r.request?.step, r.request?.tool_outputs])).toEqual([
      ['gemini', 'turn', 1, 0, []],
      ['gemini', 'turn', 2, 1, ['a.md\n']],
      ['gemini', 'turn', 3, 2, ['# A']],
    ]);
    expect(records[0]?.request).toMatchObject({
      model: 'gemini-2.5-flash',
      stream: true,
      tools_offered: ['run_shell_command', 'read_file'],
      input_tokens: Math.ceil(JSON.stringify(geminiRequest([])).length / 4),
    });
    const usage = (first.events[1]?.data as Obj | undefined)?.usageMetadata as Obj;
    expect(usage.promptTokenCount).toBe(records[0]?.request?.input_tokens);
    expect(usage.candidatesTokenCount).toBe(records[0]?.response.output_tokens);
  });

  it('answers :generateContent with one JSON response, under /v1beta and /v1', async () => {
    const { url, server } = await serve(inline([{ shell: 'make' }, { final: 'green' }]));
    const first = await post(`${url}${PLAIN}`, geminiRequest([]));
    expect(first.events).toEqual([]);
    expect(first.json).toMatchObject({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'make' } } }],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { totalTokenCount: expect.any(Number) },
    });
    const second = await post(
      `${url}/v1/models/gemini-2.5-flash:generateContent`,
      geminiRequest(geminiToolRound('fc_1', 'make', 'ok')),
    );
    expect(partsOf(second.json)).toEqual([{ text: 'green' }]);
    expect(server.records.map((r) => [r.api, r.kind, r.request?.stream])).toEqual([
      ['gemini', 'turn', false],
      ['gemini', 'turn', false],
    ]);
  });

  it('answers a request without tools as a side request, and :countTokens with totalTokens', async () => {
    const { url, server } = await serve(inline({ side_reply: 'a title', turns: ['done'] }));
    const side = await post(`${url}${PLAIN}`, geminiRequest([], []));
    expect(partsOf(side.json)).toEqual([{ text: 'a title' }]);
    const body = geminiRequest([]);
    const count = await post(`${url}/v1beta/models/gemini-2.5-flash:countTokens`, body);
    expect(count.json).toEqual({ totalTokens: Math.ceil(JSON.stringify(body).length / 4) });
    expect(server.records.map((r) => [r.api, r.kind])).toEqual([
      ['gemini', 'side'],
      ['count_tokens', 'probe'],
    ]);
  });

  it("refuses in Google's error shape: exhausted script, bad JSON, unknown Gemini method", async () => {
    const { url, server } = await serve(inline(['only']));
    await post(`${url}${PLAIN}`, geminiRequest([]));
    await post(
      `${url}${PLAIN}`,
      geminiRequest([
        { role: 'model', parts: [{ text: 'only' }] },
        { role: 'user', parts: [{ text: 'more' }] },
      ]),
    );
    const refused = await post(
      `${url}${STREAM}?alt=sse`,
      geminiRequest([
        { role: 'model', parts: [{ text: 'x' }] },
        { role: 'user', parts: [{ text: 'again' }] },
      ]),
    );
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: { code: 400, message: expect.stringMatching(/exhausted/), status: 'INVALID_ARGUMENT' },
    });
    const bad = await post(`${url}${PLAIN}`, '{not json');
    expect(bad.json).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    const missing = await post(`${url}/v1beta/models/gemini-2.5-flash:embedContent`, {});
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    expect(server.records.map((r) => [r.api, r.kind, r.status])).toEqual([
      ['gemini', 'turn', 200],
      ['gemini', 'exhausted', 200],
      ['gemini', 'refused', 400],
      ['gemini', 'error', 400],
      ['other', 'not-found', 404],
    ]);
  });
});
