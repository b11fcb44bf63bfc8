import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeMasks, outputMasks, withheldMasks } from './host-masks.js';

const base = mkdtempSync(path.join(tmpdir(), 'ag-masks-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('outputMasks', () => {
  it('hides the output folder and the .agentguard beside each shown folder, when they exist', () => {
    const out = path.join(base, 'elsewhere/out');
    const runDir = path.join(out, 'runs/r1');
    const install = path.join(base, 'install');
    const config = path.join(base, 'config');
    mkdirSync(runDir, { recursive: true });
    mkdirSync(path.join(install, '.agentguard'), { recursive: true });
    mkdirSync(config, { recursive: true });
    expect(outputMasks({ runDir, visible: [install, config, path.join(runDir, 'task')] })).toEqual([
      { path: out, how: 'empty folder' },
      { path: path.join(install, '.agentguard'), how: 'empty folder' },
    ]);
  });

  it('hides only the run folder when it is not inside a runs/ folder (its grandparent could be /)', () => {
    const runDir = path.join(base, 'odd-run');
    mkdirSync(runDir, { recursive: true });
    expect(outputMasks({ runDir, visible: [] })).toEqual([{ path: runDir, how: 'empty folder' }]);
  });

  it('describes masks in one line for observation.json', () => {
    expect(
      describeMasks([
        { path: '/etc/shadow', how: 'empty file' },
        { path: '/root', how: 'empty folder' },
      ]),
    ).toBe('/etc/shadow (empty file); /root (empty folder)');
  });
});

describe('withheldMasks', () => {
  it('masks the solution folder and a grader file, except what the run names itself', () => {
    const solution = path.join(base, 'case/solution');
    const grader = path.join(base, 'case/repo/hidden/expected.txt');
    mkdirSync(solution, { recursive: true });
    mkdirSync(path.dirname(grader), { recursive: true });
    writeFileSync(grader, 'x');
    const missing = path.join(base, 'case/gone');
    expect(withheldMasks([solution, grader, missing], [path.join(base, 'case')])).toEqual([
      { path: solution, how: 'empty folder' },
      { path: grader, how: 'empty file' },
    ]);
    // Named itself, or a path inside it named: the config asked for it to be seen.
    expect(withheldMasks([solution, grader], [solution, path.dirname(grader)])).toEqual([
      { path: grader, how: 'empty file' },
    ]);
    expect(withheldMasks([solution], [path.join(solution, 'fix.py')])).toEqual([]);
  });
});
