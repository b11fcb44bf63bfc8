import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { TRACERS } from '../../src/observe/index.js';
import { SANDBOXES } from '../../src/sandbox/index.js';
import { execCli, tempDir } from './exec-cli.js';

const work = tempDir('ag-doctor-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Finding = { component: string; name: string; works: boolean; detail: string; fix: string };

describe('agentguard doctor', () => {
  it('has a row for every sandbox and tracer of the registries, and a fix for every one that does not work', async () => {
    const r = await execCli(['doctor', '--json'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const findings = JSON.parse(r.stdout) as Finding[];
    const names = (component: string) => findings.filter((f) => f.component === component).map((f) => f.name);
    for (const kind of Object.keys(SANDBOXES))
      expect(names('sandbox').some((n) => n === kind || n.startsWith(`${kind} (`))).toBe(true);
    for (const kind of Object.keys(TRACERS)) expect(names('tracer')).toContain(kind);
    for (const f of findings.filter((f) => !f.works)) expect(f.fix, f.name).not.toBe('');
    // Network isolation is what a sandbox that bridges the proxy gives: bwrap works here.
    const bwrap = findings.find((f) => f.name === 'bwrap');
    const none = findings.find((f) => f.component === 'network' && f.name === 'none');
    expect(none?.works).toBe(bwrap?.works);
    if (bwrap?.works) expect(none?.detail).toMatch(/bwrap/);
  }, 60_000);
});
