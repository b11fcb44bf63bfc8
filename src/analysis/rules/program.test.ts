import { describe, expect, it } from 'vitest';
import { programOf } from './program.js';

describe('programOf', () => {
  const cases: [string, string, string[], string | undefined, { name: string; program: string }][] = [
    ['a plain binary', '/usr/bin/git', ['git', 'status'], '/w', { name: 'git', program: '/usr/bin/git' }],
    [
      'node running npm',
      '/usr/bin/node',
      ['node', '/usr/bin/npm', 'install'],
      '/w',
      { name: 'npm', program: '/usr/bin/npm' },
    ],
    [
      'node with a require flag',
      '/usr/bin/node',
      ['node', '-r', 'ts-node/register', 'x.ts'],
      '/w',
      { name: 'x', program: '/w/x.ts' },
    ],
    [
      "yarn 1's entry script in corepack's cache is yarn",
      '/usr/bin/node',
      ['/usr/bin/node', '/root/.cache/node/corepack/v1/yarn/1.22.22/lib/cli.js', 'run', 'test'],
      '/w',
      { name: 'yarn', program: '/root/.cache/node/corepack/v1/yarn/1.22.22/lib/cli.js' },
    ],
    [
      "a package's generic entry script is named by its package",
      '/usr/bin/node',
      ['node', 'node_modules/@scope/tool/dist/index.js'],
      '/w',
      { name: 'tool', program: '/w/node_modules/@scope/tool/dist/index.js' },
    ],
    [
      "a project's own index.js keeps its name",
      '/usr/bin/node',
      ['node', 'index.js'],
      '/w',
      { name: 'index', program: '/w/index.js' },
    ],
    ['node -e', '/usr/bin/node', ['node', '-e', 'x()'], '/w', { name: 'node', program: '/usr/bin/node' }],
    [
      'python -m pip',
      '/usr/bin/python3',
      ['python3', '-m', 'pip', 'install', 'x'],
      '/w',
      { name: 'pip', program: '/usr/bin/python3' },
    ],
    [
      'python -c',
      '/usr/bin/python3.11',
      ['python3', '-c', 'print(1)', 'a.py'],
      '/w',
      { name: 'python3.11', program: '/usr/bin/python3.11' },
    ],
    [
      'python with -W value then script',
      '/usr/bin/python3',
      ['python3', '-W', 'ignore', 'run.py'],
      '/tmp',
      { name: 'run', program: '/tmp/run.py' },
    ],
    [
      'sh script relative to cwd',
      '/usr/bin/sh',
      ['sh', 'payload'],
      '/tmp',
      { name: 'payload', program: '/tmp/payload' },
    ],
    ['bash -lc code', '/bin/bash', ['bash', '-lc', 'make'], '/w', { name: 'bash', program: '/bin/bash' }],
    ['bash -x script', '/bin/bash', ['bash', '-x', '/w/../w/t.sh'], '/', { name: 't', program: '/w/t.sh' }],
    [
      'perl -e',
      '/usr/bin/perl',
      ['perl', '-le', 'print 1'],
      '/w',
      { name: 'perl', program: '/usr/bin/perl' },
    ],
    ['no exe known', '', ['tool'], '/w', { name: 'tool', program: 'tool' }],
  ];
  for (const [name, exe, argv, cwd, want] of cases) {
    it(name, () => expect(programOf(exe, argv, cwd)).toEqual(want));
  }
});
