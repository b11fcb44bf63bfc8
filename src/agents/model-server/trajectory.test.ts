import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import { loadTrajectory } from './trajectory.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-trajectory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

function errorOf(file: string): string {
  try {
    loadTrajectory(file);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`${file} loaded without error`);
}

describe('loadTrajectory', () => {
  it('loads every fixture, YAML and JSON', () => {
    const hello = loadTrajectory(path.join(FIXTURES, 'hello.yaml'));
    expect(hello.turns.map((t) => (t.kind === 'body' ? t.body : null))).toEqual([
      {
        text: "I'll create the file.",
        calls: [{ kind: 'shell', command: 'echo hi > hello.txt' }],
        next: null,
      },
      { text: null, calls: [{ kind: 'shell', command: 'cat hello.txt' }], next: null },
      { text: 'done', calls: [], next: null },
    ]);
    expect(hello).toMatchObject({ name: 'hello', loopLimit: 3, sideRequests: 'no-tools', sideReply: 'OK' });
    expect(loadTrajectory(path.join(FIXTURES, 'hello.json')).turns).toHaveLength(3);
    const branch = loadTrajectory(path.join(FIXTURES, 'branch.yaml'));
    const judge = branch.turns[1];
    expect(judge?.kind === 'when' && judge.alternatives.map((a) => [a.condition, a.next])).toEqual([
      [{ contains: 'FAIL' }, 'test'],
      [{ regex: /\bpass(ed)?\b/i }, null],
      [null, null],
    ]);
    const skill = loadTrajectory(path.join(FIXTURES, 'skill-read.yaml'));
    expect(skill.turns[0]?.kind === 'body' && skill.turns[0].body.calls).toEqual([
      { kind: 'tool', name: 'Read', args: { file_path: 'SKILL.md' } },
    ]);
  });

  it('accepts a bare list of turns and plain strings as final answers', () => {
    const t = loadTrajectory(write('bare.yaml', '- shell: [ls, pwd]\n- all done\n'));
    expect(t.turns[0]?.kind === 'body' && t.turns[0].body.calls).toHaveLength(2);
    expect(t.turns[1]?.kind === 'body' && t.turns[1].body.text).toBe('all done');
    expect(t.name).toBe('bare');
  });

  it.each([
    [
      'syntax.yaml',
      'turns:\n  - shell: "unclosed\n',
      /syntax.yaml: is not valid YAML or JSON at line \d+.*Fix: correct the syntax/,
    ],
    ['missing.yaml', 'name: x\n', /missing.yaml: field 'turns': must be a non-empty list.*Fix: add `turns:`/],
    [
      'typo.yaml',
      'turns:\n  - shel: ls\n',
      /typo.yaml: field 'turns\[0\]\.shel': 'shel' is not a known key\. Fix: did you mean 'shell'\?/,
    ],
    [
      'empty.yaml',
      'turns:\n  - shell: ls\n  - id: x\n',
      /empty.yaml: field 'turns\[1\]': says nothing and calls nothing\. Fix: add `shell:`/,
    ],
    [
      'final.yaml',
      'turns:\n  - final: done\n    shell: ls\n',
      /field 'turns\[0\]\.final': cannot be combined.*Fix:/,
    ],
    [
      'next.yaml',
      'turns:\n  - id: start\n    shell: ls\n    next: strat\n',
      /field 'turns\[0\]\.next': names turn id 'strat'.*Fix: did you mean 'start'\?/,
    ],
    [
      'dupe.yaml',
      'turns:\n  - {id: a, shell: ls}\n  - {id: a, final: x}\n',
      /field 'turns\[1\]\.id': repeats the id 'a' of turns\[0\]/,
    ],
    [
      'default.yaml',
      'turns:\n  - when:\n      - final: a\n      - contains: x\n        final: b\n',
      /field 'turns\[0\]\.when\[0\]': has no condition but is not the last.*Fix: put the default alternative last/,
    ],
    [
      'both.yaml',
      'turns:\n  - shell: ls\n    when:\n      - final: x\n',
      /field 'turns\[0\]': has both 'when' and 'shell'/,
    ],
    [
      'regex.yaml',
      'turns:\n  - when:\n      - regex: "a("\n        final: x\n',
      /field 'turns\[0\]\.when\[0\]\.regex': is not a valid regular expression/,
    ],
    [
      'call.yaml',
      'turns:\n  - calls:\n      - tool: Read\n        args: README.md\n',
      /field 'turns\[0\]\.calls\[0\]\.args': must be a mapping.*Fix: write e.g. `args: \{file_path/,
    ],
    [
      'limit.yaml',
      'loop_limit: 0\nturns: [done]\n',
      /field 'loop_limit': must be a whole number of at least 1\. Fix: write e.g. `loop_limit: 3`/,
    ],
    [
      'mode.yaml',
      'side_requests: sometimes\nturns: [done]\n',
      /field 'side_requests': must be one of no-tools, never/,
    ],
  ])('rejects %s with the file, the turn and the fix', (name, text, pattern) => {
    const file = write(name, text);
    const message = errorOf(file);
    expect(message).toContain(file);
    expect(message).toMatch(pattern);
    expect(message).toContain('Fix: ');
  });

  it('a nested typo suggests the key of its level: an alternative, a call', () => {
    const alt = errorOf(
      write('alt-typo.yaml', 'turns:\n  - when:\n      - contans: x\n        final: b\n      - final: c\n'),
    );
    // One issue: the alternative is not also "without a condition", which only the typo made it.
    expect(alt.split('\n')).toEqual([
      expect.stringMatching(
        /field 'turns\[0\]\.when\[0\]\.contans': 'contans' is not a known key\. Fix: did you mean 'contains'\?/,
      ),
    ]);
    expect(
      errorOf(write('call-typo.yaml', 'turns:\n  - calls:\n      - {tool: Read, arsg: {a: 1}}\n')),
    ).toMatch(/field 'turns\[0\]\.calls\[0\]\.arsg': 'arsg' is not a known key\. Fix: did you mean 'args'\?/);
  });

  it('reports every problem of the file at once, one per line', () => {
    const file = write('two.yaml', 'loop_limit: 0\nturns:\n  - calls: [{shell: ls, tool: x}, {args: {}}]\n');
    let caught: unknown;
    try {
      loadTrajectory(file);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).issues.map((i) => i.field)).toEqual([
      'turns[0].calls[0]',
      'turns[0].calls[1]',
      'loop_limit',
    ]);
  });

  it('names a missing file', () => {
    expect(errorOf(path.join(dir, 'nope.yaml'))).toMatch(/nope.yaml: the trajectory file does not exist/);
  });
});
