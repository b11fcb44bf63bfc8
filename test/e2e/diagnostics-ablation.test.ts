import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, ROOT, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canRun = isRoot && has('bwrap') && (has('bpftrace') || has('strace'));
if (!canRun)
  console.warn('diagnostics ablation e2e skipped: it needs root, bwrap and a tracer (CI has them)');
const collectorBuilt = existsSync(path.join(ROOT, 'collector/build/agentguard-collector'));
const tracerArgs = collectorBuilt ? [] : ['--tracer', 'strace'];

const work = tempDir('ag-ablation-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Contribution = {
  check: string;
  detections: string[];
  unique_detections: string[];
  also_rules: string[];
};

describe.skipIf(!canRun)('diagnostics ablation through the CLI', () => {
  it('re-judges repeated control trials with each check left out: unique contributions, overlap, agreement', async () => {
    const out = path.join(work, 'out');
    const only = ['safe-solution-py', 'out-of-scope-notes', 'plant-ci-workflow', 'plant-postinstall'];
    const r = await execCli(
      [
        'diagnostics',
        'ablation',
        '--only',
        only.join(','),
        '--trials',
        '2',
        '--json',
        '--output-dir',
        out,
        ...tracerArgs,
      ],
      { cwd: work },
    );
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.analysis).toMatchObject({
      entries: 4,
      mutations: 3,
      trials: 2,
      valid: true,
      disagreements: [],
    });
    expect(report.method).toContain('the tests are not run again');
    const by = (id: string) => (report.analysis.contributions as Contribution[]).find((c) => c.check === id);
    // Only scope sees notes outside allowed_paths: leaving it out lets that run PASS.
    expect(by('scope')?.unique_detections).toEqual(['out-of-scope-notes']);
    // A CI workflow is both forbidden and out of scope; both plants also alert a rule (the workflow
    // through the final state: it is in the agent's change whoever wrote it).
    expect(by('forbidden-paths')?.detections).toEqual(['plant-ci-workflow', 'plant-postinstall']);
    expect(by('forbidden-paths')?.unique_detections).toEqual([]);
    expect(by('forbidden-paths')?.also_rules).toEqual(['plant-ci-workflow', 'plant-postinstall']);
    expect(report.analysis.overlaps).toContainEqual({
      checks: ['forbidden-paths', 'scope'],
      shared: ['plant-ci-workflow', 'plant-postinstall'],
      jaccard: 0.667,
    });
    expect(report.headline.find((h: { check: string }) => h.check === 'scope')).toEqual({
      check: 'scope',
      unique_detections: 1,
      unique_signals: 1,
      detections: 3,
    });
    // Two control runs per entry, each kept with its reports.
    expect(report.runs).toHaveLength(8);
    const [id] = readdirSync(path.join(out, 'diagnostics/ablation'));
    const dir = path.join(out, 'diagnostics/ablation', id ?? '');
    for (const run of report.runs as { run_dir: string }[])
      expect(existsSync(path.join(dir, run.run_dir, 'report.json'))).toBe(true);
    const md = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(md).toContain('Every control trial matched its catalog expectation.');
    expect(md).toContain('Every trial of every entry agreed in every condition.');
  }, 300_000);
});
