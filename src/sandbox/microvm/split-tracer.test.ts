import { describe, expect, it } from 'vitest';
import { straceOptions } from '../../observe/strace/strace-command.js';
import { splitTracer } from './split-tracer.js';

describe('splitTracer', () => {
  it("takes the strace tracer's own argv apart: options without -o, the log file, the command", () => {
    const argv = [
      '/usr/bin/strace',
      ...straceOptions('/runs/x/tracer/strace.log', 4096),
      'python3',
      '-m',
      'x',
    ];
    const split = splitTracer(argv);
    expect(split.traceFile).toBe('/runs/x/tracer/strace.log');
    expect(split.command).toEqual(['python3', '-m', 'x']);
    expect(split.trace?.[0]).toBe('/usr/bin/strace');
    expect(split.trace).not.toContain('-o');
    expect(split.trace).not.toContain('--');
    expect(split.trace).toContain('--seccomp-bpf');
  });

  it('leaves any other command whole, even one that contains -o and --', () => {
    expect(splitTracer(['sh', '-c', 'x', '-o', 'f', '--', 'y'])).toEqual({
      command: ['sh', '-c', 'x', '-o', 'f', '--', 'y'],
    });
  });
});
