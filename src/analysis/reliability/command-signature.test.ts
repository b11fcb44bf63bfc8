import { describe, expect, it } from 'vitest';
import { commandSignature } from './command-signature.js';
import { normalisePath } from './normalise-path.js';

const WS = '/runs/r-0001/repo';
const normalise = (p: string) => normalisePath(p, { workspaceDir: WS, homeDirs: ['/root'], runId: 'r-0001' });
const sig = (exe: string, argv: string[], cwd: string | undefined = WS) =>
  commandSignature(exe, argv, cwd, normalise);

describe('commandSignature', () => {
  it('keeps the program base name and up to two subcommand words', () => {
    expect(sig('/usr/bin/git', ['git', 'status'])).toBe('git status');
    expect(sig('/usr/local/bin/git', ['git', 'status', '--short'])).toBe('git status');
    expect(sig('/usr/bin/git', ['git', 'commit', '-m', 'fix the bug'])).toBe('git commit');
    expect(sig('/usr/bin/npm', ['npm', 'run', 'test:unit', 'extra'])).toBe('npm run test:unit');
  });

  it('stops at the first option, path or value', () => {
    expect(sig('/usr/bin/ls', ['ls', '-la', 'src'])).toBe('ls');
    expect(sig('/usr/bin/cat', ['cat', 'src/a.js'])).toBe('cat');
    expect(sig('/usr/bin/cat', ['cat', 'README.md'])).toBe('cat');
    expect(sig('/usr/bin/env', ['env', 'FOO=1', 'node'])).toBe('env');
    expect(sig('/usr/bin/grep', ['grep', '-rn', 'TODO', '.'])).toBe('grep');
  });

  it('names what an interpreter runs: a module, a script, or inline code', () => {
    expect(sig('/usr/bin/python3', ['python3', '-m', 'pytest', '-q'])).toBe('python3 -m pytest');
    expect(sig('/usr/bin/python3.11', ['python3.11', '-c', 'print(1)'])).toBe('python3.11 -c');
    expect(sig('/usr/bin/node', ['node', 'scripts/build.js', '--watch'])).toBe(
      'node $WORKSPACE/scripts/build.js',
    );
    expect(sig('/usr/bin/node', ['node', '/runs/r-0001/repo/x.js'])).toBe('node $WORKSPACE/x.js');
    expect(sig('/usr/bin/node', ['node', '-e', 'process.exit(0)'])).toBe('node -c');
    expect(sig('/bin/sh', ['sh', '-c', 'npm test && echo done'])).toBe('sh -c');
    expect(sig('/bin/bash', ['bash', '-lc', 'ls'])).toBe('bash -c');
    expect(sig('/bin/bash', ['bash', '-e', 'run.sh'])).toBe('bash $WORKSPACE/run.sh');
    expect(sig('/usr/bin/node', ['node'])).toBe('node');
  });

  it('resolves a relative script only when the cwd is known', () => {
    expect(commandSignature('/usr/bin/python3', ['python3', 'a.py'], undefined, normalise)).toBe(
      'python3 a.py',
    );
    expect(sig('/usr/bin/python3', ['python3', 'a.py'], '/root')).toBe('python3 $HOME/a.py');
  });

  it('keeps the normalised path of programs in the run’s own folders or a temp root', () => {
    expect(sig(`${WS}/scripts/check.sh`, ['./scripts/check.sh', 'all'])).toBe(
      '$WORKSPACE/scripts/check.sh all',
    );
    expect(sig('/tmp/x9y8z7/run', ['run'])).toBe('/tmp/$RAND/run');
  });

  it('falls back to argv[0] when the exec path is unknown', () => {
    expect(sig('', ['make', 'test'])).toBe('make test');
    expect(sig('', [])).toBe('?');
  });
});
