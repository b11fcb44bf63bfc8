import { describe, expect, it } from 'vitest';
import type { Alert } from '../analysis/rules/types.js';
import type { CheckResult } from '../analysis/types.js';
import { recordWithoutOutput } from '../evidence/command-record.js';
import type { CommandRecord, TestEvidence } from '../evidence/types.js';
import { explainVerdict, WHY_LIMITS, whyLine } from './why.js';

const PROMPT = 'Make `mean([])` return 0 instead of throwing.\nDo not change the tests.';

function command(over: Partial<CommandRecord> & Pick<CommandRecord, 'id' | 'role'>): CommandRecord {
  return recordWithoutOutput({ argv: ['prog'], cwd: '/w', exit_code: 0, ...over });
}

const check = (id: CheckResult['id'], passed: boolean, severity: CheckResult['severity'], message: string) =>
  ({ id, passed, severity, message, evidence: [] }) satisfies CheckResult;

const tests = (over: Partial<TestEvidence> = {}): TestEvidence => ({
  ran: true,
  passed: false,
  exit_code: 1,
  timed_out: false,
  duration_ms: 5,
  command_id: 'cmd-2',
  ...over,
});

function alert(rule: string, severity: Alert['severity']): Alert {
  const proc = (pid: number, exe: string) => ({ pid, exe, argv: [exe] });
  return {
    rule,
    class: 'secrets',
    severity,
    description: '',
    message: `${rule} fired`,
    syscall: 'openat',
    seq: 1,
    ts: 10,
    count: 1,
    process: {
      ...proc(3, '/usr/bin/cat'),
      chain: [proc(3, '/usr/bin/cat'), proc(2, '/bin/sh'), proc(1, '/usr/bin/node')],
    },
  } as Alert;
}

describe('explainVerdict', () => {
  it('has nothing to explain for a run that passed', () => {
    expect(
      explainVerdict({
        result: 'PASS',
        checks: [],
        alerts: [],
        tests: tests(),
        commands: [],
        prompt: PROMPT,
      }),
    ).toBeNull();
  });

  it('names what an agent without its API key said, not only its exit code', () => {
    const agent = command({
      id: 'cmd-1',
      role: 'agent',
      exit_code: 1,
      display_argv: ['claude', '-p', '<prompt>'],
      stderr: '\u001b[31mError:\u001b[0m No API key found. Set ANTHROPIC_API_KEY or run /login.\n',
    });
    const why = explainVerdict({
      result: 'FAIL',
      checks: [
        check('agent-exit', false, 'error', 'exited with code 1'),
        check('scope', true, 'error', 'ok'),
      ],
      alerts: [],
      tests: tests({ ran: false, passed: false, command_id: null }),
      commands: [agent],
      prompt: PROMPT,
    });
    expect(why && whyLine(why)).toBe(
      'agent-exit: exited with code 1 — it printed: Error: No API key found. Set ANTHROPIC_API_KEY or run /login.',
    );
    expect(why?.output).toEqual([
      expect.objectContaining({
        role: 'agent',
        stream: 'stderr',
        program: 'claude -p <prompt>',
        exit_code: 1,
      }),
    ]);
  });

  it('puts an agent that failed to run before the tests it left failing', () => {
    const why = explainVerdict({
      result: 'FAIL',
      checks: [
        check('tests-pass', false, 'critical', '1 failing test'),
        check('agent-exit', false, 'error', 'the agent exited with code 1'),
      ],
      alerts: [],
      tests: tests({
        results: { format: 'tap', cases: [{ name: 'mean of empty is 0', status: 'failed' }] },
      }),
      commands: [
        command({ id: 'cmd-1', role: 'agent', exit_code: 1, stdout: 'Not logged in · Please run /login\n' }),
        command({ id: 'cmd-2', role: 'tests', exit_code: 1 }),
      ],
      prompt: PROMPT,
    });
    expect(why && whyLine(why)).toBe(
      'agent-exit: the agent exited with code 1 — it printed: Not logged in · Please run /login',
    );
    expect(why?.reasons.map((r) => r.kind)).toEqual(['check', 'test', 'check']);
  });

  it("shows a mistyped test command's own message", () => {
    const testRun = command({
      id: 'cmd-2',
      role: 'tests',
      exit_code: 1,
      stderr: 'npm error Unknown command: "tset"\nnpm error Did you mean this?\nnpm error   npm test\n',
    });
    const why = explainVerdict({
      result: 'FAIL',
      checks: [check('tests-pass', false, 'critical', 'tests failed with exit code 1')],
      alerts: [],
      tests: tests(),
      commands: [command({ id: 'cmd-1', role: 'agent' }), testRun],
      prompt: PROMPT,
    });
    expect(why?.output[0]?.lines).toContain('npm error Unknown command: "tset"');
    expect(why && whyLine(why)).toBe(
      'tests-pass: tests failed with exit code 1 — it printed: npm error Unknown command: "tset"',
    );
    // A passing agent's output is not part of why the run failed.
    expect(why?.output.map((t) => t.role)).toEqual(['tests']);
  });

  it('names the line that says what went wrong, not the help printed after it, in each spelling', () => {
    const said = (stream: 'stdout' | 'stderr', text: string) => {
      const why = explainVerdict({
        result: 'FAIL',
        checks: [check('tests-pass', false, 'critical', 'tests failed with exit code 1')],
        alerts: [],
        tests: tests(),
        commands: [command({ id: 'cmd-2', role: 'tests', exit_code: 1, [stream]: text })],
        prompt: PROMPT,
      });
      return why?.reasons[0]?.kind === 'check' ? why.reasons[0].last_words : undefined;
    };
    // npm 11 on stdout, with the help after the error.
    expect(
      said(
        'stdout',
        'Unknown command: "tset"\n\nDid you mean this?\n  npm set # Set a value\nTo see a list of supported npm commands, run:\n  npm help\n',
      ),
    ).toBe('Unknown command: "tset"');
    expect(said('stderr', 'sh: 1: tset: not found\n')).toBe('sh: 1: tset: not found');
    expect(said('stderr', "make: *** No rule to make target 'tset'.  Stop.\n")).toBe(
      "make: *** No rule to make target 'tset'.  Stop.",
    );
    expect(
      said('stderr', 'error: no such command: `tset`\n\n\tView all installed commands with `cargo --list`\n'),
    ).toBe('error: no such command: `tset`');
    // Nothing names trouble: the last line with words.
    expect(said('stdout', 'ran 3 checks\nall done\n}\n')).toBe('all done');
  });

  it('names the failing test among several, before the checks, and missing or skipped expected tests', () => {
    const why = explainVerdict({
      result: 'FAIL',
      checks: [check('tests-pass', false, 'critical', '1 of 4 tests failed')],
      alerts: [],
      tests: tests({
        results: {
          format: 'tap',
          cases: [
            { name: 'mean of two', status: 'passed' },
            { name: 'mean of empty is 0', status: 'failed' },
            { name: 'median', status: 'skipped' },
          ],
          expected: {
            source: 'baseline-run',
            count: 4,
            names: ['mean of two', 'mean of empty is 0', 'median', 'mode'],
          },
        },
      }),
      commands: [],
      prompt: PROMPT,
    });
    expect(why?.reasons.slice(0, 3)).toEqual([
      { kind: 'test', name: 'mean of empty is 0', status: 'failed' },
      { kind: 'test', name: 'median', status: 'skipped' },
      { kind: 'test', name: 'mode', status: 'missing' },
    ]);
    expect(why && whyLine(why)).toBe('test failed: mean of empty is 0');
  });

  it('puts the blocking alerts first, most severe first, with the process chain, and bounds them', () => {
    const alerts = [
      alert('net-unknown-host', 'warning'),
      ...Array.from({ length: 7 }, (_, i) => alert(`secrets-${i}`, 'error')),
      alert('exfil-canary', 'critical'),
    ];
    const why = explainVerdict({
      result: 'FAIL',
      checks: [check('diff-size', false, 'warning', 'big diff')],
      alerts,
      tests: tests({ passed: true, exit_code: 0 }),
      commands: [],
      prompt: PROMPT,
    });
    expect(why?.reasons[0]).toMatchObject({
      kind: 'alert',
      rule: 'exfil-canary',
      chain: ['cat', 'sh', 'node'],
    });
    expect(why?.reasons.filter((r) => r.kind === 'alert')).toHaveLength(WHY_LIMITS.alerts);
    expect(why?.omitted.alerts).toBe(3);
    // A warning alert costs points but decides nothing; the failed check is still listed.
    expect(why?.reasons.some((r) => r.kind === 'alert' && r.rule === 'net-unknown-host')).toBe(false);
    expect(why?.reasons.at(-1)).toMatchObject({ kind: 'check', id: 'diff-size' });
    expect(why && whyLine(why)).toBe(
      'alert exfil-canary (critical): exfil-canary fired — by cat ← sh ← node',
    );
  });

  it("puts why the run was ended first: the harness's own failure is not the agent's", () => {
    const why = explainVerdict({
      result: 'ERROR',
      checks: [check('agent-exit', false, 'error', 'the agent was not started')],
      alerts: [],
      tests: tests({ ran: false }),
      commands: [],
      prompt: PROMPT,
      stopped:
        'the sandbox bridge failed (cannot listen inside the sandbox: EACCES 127.0.0.1:53; the agent never started)',
    });
    expect(why?.reasons[0]).toEqual({
      kind: 'stopped',
      reason: expect.stringContaining('the sandbox bridge failed'),
    });
    expect(why && whyLine(why)).toMatch(
      /^the sandbox bridge failed \(cannot listen inside the sandbox: EACCES/,
    );
  });

  it('keeps the last lines, bounded and without control characters, and cuts an echoed prompt', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    lines.push(
      `echo: Make \`mean([])\` return 0 instead of throwing.`,
      'x'.repeat(1000),
      'bell\u0007 done\r',
    );
    const why = explainVerdict({
      result: 'ERROR',
      checks: [],
      alerts: [],
      tests: tests({ passed: true }),
      commands: [
        command({ id: 's', role: 'setup', exit_code: 2, stdout: lines.join('\n'), stdout_truncated: true }),
      ],
      prompt: PROMPT,
    });
    const tail = why?.output[0];
    expect(tail?.lines).toHaveLength(WHY_LIMITS.tailLines);
    expect(tail?.omitted_lines).toBe(43 - WHY_LIMITS.tailLines);
    expect(tail?.lines.at(-1)).toBe('bell done');
    expect(tail?.lines.at(-2)).toHaveLength(WHY_LIMITS.lineChars);
    expect(tail?.lines.at(-3)).toBe('echo: [the task prompt]');
  });
});
