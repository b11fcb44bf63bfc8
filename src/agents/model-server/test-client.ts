// A small HTTP client standing in for an agent in tests (excluded from the build by its name).
import { parseTrajectory } from './trajectory.js';
import type { Trajectory } from './types.js';

export type SseEvent = { event: string | null; data: unknown };
export type Reply = { status: number; json: unknown; events: SseEvent[] };

export async function post(url: string, body: unknown): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return { status: res.status, json: null, events: parseSse(text) };
  return { status: res.status, json: text === '' ? null : JSON.parse(text), events: [] };
}

export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | null = null;
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      return { event, data: data === '[DONE]' ? data : (JSON.parse(data) as unknown) };
    });
}

export function inline(raw: unknown): Trajectory {
  return parseTrajectory(raw, 'inline.yaml');
}

/** Requests shaped like each agent's, with a growing history. */
export const codexTools = [
  {
    type: 'function',
    name: 'exec_command',
    parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
  },
];
export const claudeTools = [
  { name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } },
  { name: 'Read', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
];
export const chatTools = [
  {
    type: 'function',
    function: { name: 'shell', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
  },
];

export function responsesRequest(history: unknown[], tools: unknown[] = codexTools): Record<string, unknown> {
  return {
    model: 'scripted-model',
    stream: true,
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] }, ...history],
    tools,
  };
}

export function anthropicRequest(
  history: unknown[],
  stream = true,
  tools: unknown[] = claudeTools,
): Record<string, unknown> {
  return {
    model: 'claude-test',
    stream,
    max_tokens: 1000,
    system: [{ type: 'text', text: 'You are a test.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'fix it' }] }, ...history],
    tools,
  };
}

export function chatRequest(history: unknown[], stream: boolean): Record<string, unknown> {
  return {
    model: 'gpt-test',
    stream,
    messages: [
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'fix it' },
      ...history,
    ],
    tools: chatTools,
  };
}

/** The history items a Responses client appends after running a function call. */
export function responsesToolRound(callId: string, cmd: string, output: string): unknown[] {
  return [
    { type: 'function_call', call_id: callId, name: 'exec_command', arguments: JSON.stringify({ cmd }) },
    { type: 'function_call_output', call_id: callId, output },
  ];
}

export function anthropicToolRound(id: string, command: string, output: string): unknown[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
  ];
}

/** gemini-cli's shell and file-read tools, as its `functionDeclarations` carry them. */
export const geminiTools = [
  {
    functionDeclarations: [
      {
        name: 'run_shell_command',
        parametersJsonSchema: {
          type: 'object',
          properties: { command: { type: 'string' }, description: { type: 'string' } },
          required: ['command'],
        },
      },
      {
        name: 'read_file',
        parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } } },
      },
    ],
  },
];

export function geminiRequest(history: unknown[], tools: unknown[] = geminiTools): Record<string, unknown> {
  return {
    contents: [
      { role: 'user', parts: [{ text: '<session_context>linux</session_context>' }, { text: 'fix it' }] },
      ...history,
    ],
    systemInstruction: { parts: [{ text: 'You are a test.' }] },
    tools,
    generationConfig: { temperature: 1 },
  };
}

/** The contents gemini-cli appends after running a function call. */
export function geminiToolRound(id: string, command: string, output: string): unknown[] {
  return [
    { role: 'model', parts: [{ functionCall: { id, name: 'run_shell_command', args: { command } } }] },
    {
      role: 'user',
      parts: [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }],
    },
  ];
}
