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
    // Last, one real run as this user says whether the parts work together, and how it ran.
    const run = findings.filter((f) => f.component === 'run');
    expect(run).toHaveLength(1);
    expect(run[0]?.name).toMatch(/^a run as \S+ \(uid \d+\)$/);
    if (bwrap?.works) expect(run[0]?.detail).toMatch(/^PASS in [\d.]+ s \(bwrap sandbox, \w+ tracer\)/);
    if (run[0] && !run[0].works) expect(run[0].fix).not.toBe('');
  }, 120_000);

  it('prints a one-line summary, then every finding within 100 columns, each fix under its problem', async () => {
    const json = JSON.parse((await execCli(['doctor', '--json'], { cwd: work })).stdout) as Finding[];
    const r = await execCli(['doctor'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    const broken = json.filter((f) => !f.works);
    expect(lines[0]).toMatch(
      broken.length === 0
        ? /^agentguard doctor: all \d+ checks work here\.$/
        : new RegExp(`^agentguard doctor: ${json.length - broken.length} of ${json.length} work; not here: `),
    );
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
    for (const f of broken) expect(r.stdout).toContain(`  NO  ${f.name}`);
    expect(r.stdout).toMatch(/^run$/m);
    expect(r.stdout.match(/^ {8}fix: /gm)?.length ?? 0).toBe(broken.filter((f) => f.fix).length);
    // A network mode's detail names each sandbox that enforces it once.
    const none = json.find((f) => f.component === 'network' && f.name === 'none');
    const kinds = none?.detail.match(/by the (.*) sandbox/)?.[1]?.split(', ') ?? [];
    expect(new Set(kinds).size).toBe(kinds.length);
  }, 120_000);
});
