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
    expect(split.trace).toContain('-f');
  });

  it("takes the in-guest collector's argv apart: the collector, its raw file, strace as its step-down, the command", () => {
    const strace = straceOptions('/runs/x/tracer/unused.log', 4096);
    const stepDown = ['/usr/bin/strace', ...strace.slice(0, strace.indexOf('-o'))];
    const argv = [
      '/opt/ag/collector/build/agentguard-collector',
      '-o',
      '/runs/x/tracer/ebpf-raw.jsonl',
      ...stepDown,
      '--',
      'sh',
      '-c',
      'id',
    ];
    expect(splitTracer(argv)).toEqual({
      collector: '/opt/ag/collector/build/agentguard-collector',
      traceFile: '/runs/x/tracer/ebpf-raw.jsonl',
      trace: stepDown,
      command: ['sh', '-c', 'id'],
    });
  });

  it('leaves any other command whole, even one that contains -o and --', () => {
    expect(splitTracer(['sh', '-c', 'x', '-o', 'f', '--', 'y'])).toEqual({
      command: ['sh', '-c', 'x', '-o', 'f', '--', 'y'],
    });
  });
});
