import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeMasks, outputMasks } from './host-masks.js';

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
