import { describe, expect, it } from 'vitest';
import { execEvent, makeBundle, makeCommand } from '../test-bundle.js';
import { commandSightings, shellScript } from './command-sightings.js';

describe('shellScript', () => {
  it.each([
    [['sh', '-c', 'echo hi'], 'echo hi'],
    [['/bin/bash', '-lc', 'make'], 'make'],
    [['bash', '--norc', '-e', '-c', 'x'], 'x'],
    [['bash', '-o', 'pipefail', '-c', 'y'], 'y'],
    [['/usr/bin/env', 'A=1', 'zsh', '-c', 'z'], 'z'],
    [['busybox', 'sh', '-c', 'w'], 'w'],
  ])('finds the script of %j', (argv, script) => {
    expect(shellScript(argv)).toBe(script);
  });

  it.each([
    [['sh', 'script.sh', '-c']],
    [['python', '-c', 'print(1)']],
    [['bash', '-c']],
    [['sh', '--', '-c']],
  ])('finds no script in %j', (argv) => {
    expect(shellScript(argv)).toBeNull();
  });
});

describe('commandSightings', () => {
  it('notes failed and truncated execs and falls back to the path when argv is missing', () => {
    const bundle = makeBundle({
      commands: [],
      syscalls: [
        execEvent(['nope'], { result: -2 }),
        execEvent([], { argv: undefined, path: '/usr/bin/true', truncated: true, seq: 2 }),
      ],
    });
    expect(commandSightings(bundle).map((s) => [s.display, s.notes])).toEqual([
      ['nope', ['exec failed (-2)']],
      ['/usr/bin/true', ['argv cut by the tracer']],
    ]);
  });

  it("names an agent log's command by its file and line, as a claim, and never lets it hide an exec", () => {
    const bundle = makeBundle({
      commands: [
        makeCommand({ id: 'agent-log-1', role: 'agent-log', log_source: '.agent/s.jsonl:2', argv: ['ls'] }),
      ],
      syscalls: [execEvent(['ls'])],
    });
    expect(commandSightings(bundle).map((s) => [s.source, s.notes])).toEqual([
      ["the agent's log .agent/s.jsonl:2", ['claimed by the log, not observed']],
      [expect.stringMatching(/^syscall seq/), []],
    ]);
  });
});
