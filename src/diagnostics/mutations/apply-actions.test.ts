import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACTION_KINDS, type WorkspaceAction, WorkspaceActionSchema } from './actions.js';
import { ActionError, applyWorkspaceActions, taskOverlay, withTestTimeScript } from './apply-actions.js';

let root: string;
let repo: string;
let solution: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'ag-actions-'));
  repo = path.join(root, 'repo');
  solution = path.join(root, 'solution');
  mkdirSync(path.join(repo, 'src'), { recursive: true });
  mkdirSync(path.join(solution, 'src'), { recursive: true });
  writeFileSync(path.join(repo, 'src/a.txt'), 'one\ntwo\n');
  writeFileSync(path.join(solution, 'src/a.txt'), 'fixed\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const apply = (...actions: WorkspaceAction[]) => applyWorkspaceActions(repo, actions, solution);
const read = (rel: string) => readFileSync(path.join(repo, rel), 'utf8');

describe('workspace actions', () => {
  it('apply-solution copies the reference solution over the workspace', () => {
    apply({ kind: 'apply-solution' });
    expect(read('src/a.txt')).toBe('fixed\n');
    expect(() => applyWorkspaceActions(repo, [{ kind: 'apply-solution' }], undefined)).toThrow(ActionError);
  });

  it('write-file creates folders and can make the file executable', () => {
    apply({ kind: 'write-file', path: 'deep/er/x.sh', text: '#!/bin/sh\n', executable: true });
    expect(read('deep/er/x.sh')).toBe('#!/bin/sh\n');
    expect(statSync(path.join(repo, 'deep/er/x.sh')).mode & 0o111).not.toBe(0);
  });

  it('append-file and replace-text change existing files only', () => {
    apply({ kind: 'append-file', path: 'src/a.txt', text: 'three\n' });
    apply({ kind: 'replace-text', path: 'src/a.txt', find: 'two', replace: '$& 2' });
    // The replacement is literal: `$&` is not a pattern reference.
    expect(read('src/a.txt')).toBe('one\n$& 2\nthree\n');
    expect(() => apply({ kind: 'append-file', path: 'missing.txt', text: 'x' })).toThrow(
      /missing.txt does not exist/,
    );
    expect(() => apply({ kind: 'replace-text', path: 'src/a.txt', find: 'absent', replace: '' })).toThrow(
      /does not contain the text/,
    );
  });

  it('delete-file and rename', () => {
    apply({ kind: 'rename', from: 'src/a.txt', to: 'lib/b.txt' });
    expect(existsSync(path.join(repo, 'src/a.txt'))).toBe(false);
    expect(read('lib/b.txt')).toBe('one\ntwo\n');
    apply({ kind: 'delete-file', path: 'lib/b.txt' });
    expect(existsSync(path.join(repo, 'lib/b.txt'))).toBe(false);
    expect(() => apply({ kind: 'delete-file', path: 'lib/b.txt' })).toThrow(ActionError);
  });

  it('symlink points wherever it is told, out of the workspace included', () => {
    apply({ kind: 'symlink', path: 'src/passwd', target: '/etc/passwd' });
    expect(lstatSync(path.join(repo, 'src/passwd')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(repo, 'src/passwd'))).toBe('/etc/passwd');
  });

  it('grow-file writes exactly the number of lines asked for', () => {
    apply({ kind: 'grow-file', path: 'src/big.txt', lines: 250 });
    expect(
      read('src/big.txt')
        .split('\n')
        .filter((l) => l !== ''),
    ).toHaveLength(250);
  });

  it('nested-repo makes a folder with a .git of its own', () => {
    apply({ kind: 'nested-repo', path: 'vendor/lib' });
    expect(readFileSync(path.join(repo, 'vendor/lib/.git/HEAD'), 'utf8')).toMatch(/^ref: /);
    expect(existsSync(path.join(repo, 'vendor/lib/README.md'))).toBe(true);
  });

  it('an action that fails names its position and kind', () => {
    expect(() => apply({ kind: 'apply-solution' }, { kind: 'delete-file', path: 'nope' })).toThrow(
      'action 2 (delete-file) failed: nope does not exist in the workspace',
    );
  });

  it('paths that leave the workspace are refused by the schema', () => {
    for (const p of ['/etc/passwd', '../outside', 'a/../../b'])
      expect(WorkspaceActionSchema.safeParse({ kind: 'write-file', path: p, text: '' }).success).toBe(false);
    expect(WorkspaceActionSchema.safeParse({ kind: 'explode' }).success).toBe(false);
    expect(ACTION_KINDS).toContain('test-time-script');
  });
});

describe('test-time-script', () => {
  // Each wrapper is loaded for real by its language: the planted script must run (it leaves a
  // marker file) and the module must keep working.
  const marker = () => path.join(root, 'ran');
  const script = () => `echo planted > '${marker()}'`;

  it('runs when a JavaScript module is imported', () => {
    writeFileSync(path.join(repo, 'src/m.js'), 'export const x = 1;\n');
    apply({ kind: 'test-time-script', path: 'src/m.js', script: script() });
    const r = spawnSync(process.execPath, [
      '--input-type=module',
      '-e',
      `import { x } from '${path.join(repo, 'src/m.js')}'; console.log(x);`,
    ]);
    expect(r.stdout.toString().trim()).toBe('1');
    expect(readFileSync(marker(), 'utf8')).toBe('planted\n');
  });

  it('runs when a Python module is imported', () => {
    writeFileSync(path.join(repo, 'src/m.py'), 'X = 1\n');
    apply({ kind: 'test-time-script', path: 'src/m.py', script: script() });
    const r = spawnSync('python3', ['-c', 'import m; print(m.X)'], { cwd: path.join(repo, 'src') });
    expect(r.stdout.toString().trim()).toBe('1');
    expect(readFileSync(marker(), 'utf8')).toBe('planted\n');
  });

  it('runs first in a shell script, even one that exits early', () => {
    writeFileSync(path.join(repo, 'src/m.sh'), '#!/bin/sh\nexit 3\n');
    apply({ kind: 'test-time-script', path: 'src/m.sh', script: script() });
    expect(read('src/m.sh').startsWith('#!/bin/sh\n( sh -c ')).toBe(true);
    expect(spawnSync('sh', [path.join(repo, 'src/m.sh')]).status).toBe(3);
    expect(readFileSync(marker(), 'utf8')).toBe('planted\n');
  });

  it('quotes a script with quotes in it for the shell', () => {
    const text = withTestTimeScript('x.sh', '', `echo 'it''s' > '${marker()}'`);
    spawnSync('sh', ['-c', text]);
    expect(readFileSync(marker(), 'utf8')).toBe('its\n');
  });

  it('refuses a language it cannot plant into', () => {
    writeFileSync(path.join(repo, 'src/m.rb'), '');
    expect(() => apply({ kind: 'test-time-script', path: 'src/m.rb', script: 'true' })).toThrow(
      /.js, .mjs, .cjs, .py or .sh/,
    );
  });
});

describe('task actions', () => {
  it('set the agent step and the grader-only files of the copied config', () => {
    expect(
      taskOverlay([
        { kind: 'agent-command', argv: ['cat', 'README.md'] },
        { kind: 'declare-grader-files', paths: ['README.md'] },
      ]),
    ).toEqual({ agent_command: ['cat', 'README.md'], grader_paths: ['README.md'] });
  });
});
