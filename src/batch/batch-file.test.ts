import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { expandConfigs, loadSuiteFile, recursiveGlobProblem } from './batch-file.js';

const root = mkdtempSync(path.join(tmpdir(), 'ag-globs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function touch(rel: string): string {
  const f = path.join(root, rel);
  mkdirSync(path.dirname(f), { recursive: true });
  writeFileSync(f, 'name: x\n');
  return f;
}

describe('config globs in suite and matrix files', () => {
  const top = touch('suite/config.yaml');
  const a = touch('suite/a/config.yaml');
  const deep = touch('suite/b/c/d/config.yaml');
  touch('suite/b/c/d/other.yaml');
  touch('suite/node_modules/pkg/config.yaml');
  touch('suite/.git/hooks/config.yaml');
  touch('suite/.hidden/config.yaml');
  touch('outside/config.yaml');
  // A symlink back up must not make the walk loop.
  symlinkSync(path.join(root, 'suite'), path.join(root, 'suite/b/loop'));
  const dir = path.join(root, 'suite');

  it('** matches at any depth, zero folders included, in sorted order, skipping dot folders and node_modules', () => {
    expect(expandConfigs('s.yaml', 'configs', ['**/config.yaml'], dir)).toEqual([top, a, deep]);
    expect(expandConfigs('s.yaml', 'configs', ['b/**/*.yaml'], dir)).toEqual([
      deep,
      path.join(dir, 'b/c/d/other.yaml'),
    ]);
    // One-level globs are unchanged: * does not cross a folder.
    expect(expandConfigs('s.yaml', 'configs', ['*/config.yaml'], dir)).toEqual([a]);
  });

  it('refuses an absolute or climbing ** (it would walk the disk), naming the file and field', () => {
    expect(recursiveGlobProblem('/srv/**/config.yaml')).toMatch(/absolute recursive glob/);
    expect(recursiveGlobProblem('~/**/config.yaml')).toMatch(/absolute recursive glob/);
    expect(recursiveGlobProblem('../**/config.yaml')).toMatch(/climbs out/);
    expect(recursiveGlobProblem('a/../../**/x.yaml')).toMatch(/climbs out/);
    expect(recursiveGlobProblem('**/config.yaml')).toBeNull();
    // Without ** nothing changes: explicit paths and one-level globs may point anywhere.
    expect(recursiveGlobProblem('../outside/config.yaml')).toBeNull();
    expect(recursiveGlobProblem(`${root}/*/config.yaml`)).toBeNull();
    expect(() => expandConfigs('s.yaml', 'configs', ['a/config.yaml', '../**/config.yaml'], dir)).toThrow(
      new ConfigError(
        "s.yaml: field 'configs[1]': '../**/config.yaml' climbs out of this file's folder with '..' before recursing. Fix: write it relative to this file's folder without '..', e.g. '**/config.yaml', or move the file up.",
      ),
    );
    expect(() => expandConfigs('s.yaml', 'configs', [`${root}/**/config.yaml`], dir)).toThrow(
      /field 'configs\[0\]': '.*' is an absolute recursive glob/,
    );
    expect(expandConfigs('s.yaml', 'configs', ['../outside/config.yaml'], dir)).toEqual([
      path.join(root, 'outside/config.yaml'),
    ]);
  });

  it('a suite file lists ** configs relative to its own folder', () => {
    const suite = path.join(dir, 'suite.yaml');
    writeFileSync(suite, 'configs: ["**/config.yaml"]\n');
    expect(loadSuiteFile(suite).configPaths).toEqual([top, a, deep]);
    expect(() => expandConfigs('s.yaml', 'configs', ['nothing/**/config.yaml'], dir)).toThrow(
      /'nothing\/\*\*\/config.yaml' matches no config file/,
    );
  });
});
