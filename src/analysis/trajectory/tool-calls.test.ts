import { describe, expect, it } from 'vitest';
import { toolCallsOf } from './tool-calls.js';

const ex = (name: string, args: unknown) => ({
  seq: 1,
  ts: 0,
  at: 1000,
  duration_ms: 7,
  kind: 'turn',
  turn: 1,
  request: null,
  response: {
    text: 'ok',
    tool_calls: [{ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }],
    stop: 'tool_use',
  },
});

describe('toolCallsOf', () => {
  it("reads each agent's shell tool", () => {
    const calls = toolCallsOf([
      ex('exec_command', { cmd: 'ls' }),
      ex('shell', { command: ['bash', '-lc', 'make test'] }),
      ex('Bash', { command: 'npm test', description: 'run' }),
      ex('run_shell_command', { command: 'pytest -q' }),
      ex('bash', { command: 'cat a', description: 'read' }),
    ]);
    expect(calls.map((c) => [c.step, c.kind, c.command])).toEqual([
      [1, 'shell', 'ls'],
      [2, 'shell', 'make test'],
      [3, 'shell', 'npm test'],
      [4, 'shell', 'pytest -q'],
      [5, 'shell', 'cat a'],
    ]);
    expect(calls[0]?.at).toBe(1007);
  });

  it('reads the files of an edit and keeps other tools by name, even with arguments that are not JSON', () => {
    const calls = toolCallsOf([
      ex('Edit', { file_path: '/w/src/a.js', old_string: 'a', new_string: 'b' }),
      ex('apply_patch', {
        input: '*** Begin Patch\n*** Add File: b.txt\n+x\n*** Delete File: c.txt\n*** End Patch',
      }),
      ex('web_search', { query: 'x' }),
      ex('exec_command', '{not json'),
    ]);
    expect(calls.map((c) => [c.kind, c.paths ?? null])).toEqual([
      ['edit', ['/w/src/a.js']],
      ['edit', ['b.txt', 'c.txt']],
      ['other', null],
      ['other', null],
    ]);
  });
});
