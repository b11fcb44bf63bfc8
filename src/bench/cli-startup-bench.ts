import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openHistory } from '../history/db.js';
import { median } from '../overhead/stats.js';
import { buildRunReport } from '../reports/build.js';
import { fixtureAnalysis, fixtureBundle } from '../reports/test-fixture.js';

/** This build's CLI, or another's with `--cli PATH` (a before-and-after comparison). */
const cliAt = process.argv.indexOf('--cli');
const CLI =
  cliAt > 0
    ? path.resolve(process.argv[cliAt + 1] ?? '')
    : path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');

/** Wall milliseconds of one whole process, which must exit 0. */
function wallMs(args: string[], cwd: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** A history of `runs` runs, recorded by the history writer a run uses (varied agents, tasks, verdicts). */
function buildHistory(outputDir: string, runs: number): void {
  const history = openHistory(path.join(outputDir, 'history.db'));
  const base = buildRunReport(fixtureBundle(), fixtureAnalysis());
  const t0 = Date.parse('2026-11-01T00:00:00Z');
  try {
    for (let i = 0; i < runs; i++) {
      const runId = `20261101-${String(i).padStart(6, '0')}-bench`;
      const started = new Date(t0 + i * 60_000).toISOString();
      history.recordRun(
        {
          ...base,
          run_id: runId,
          run_dir: path.join(outputDir, 'runs', runId),
          started_at: started,
          result: (['PASS', 'FAIL', 'ERROR'] as const)[i % 3] ?? 'PASS',
          agent: { name: ['mock-solve', 'claude-code', 'codex'][i % 3] ?? 'codex', model: null },
          task: { name: `task-${i % 20}` },
        },
        {
          report_json: path.join(outputDir, 'runs', runId, 'report.json'),
          report_md: path.join(outputDir, 'runs', runId, 'report.md'),
        },
      );
    }
  } finally {
    history.close();
  }
}

/**
 * What a user waits for before a command starts (issue 41): `agentguard --version` and `--help`
 * against bare `node -e 0`, and `reports list` on a 1,000-run history, each the median of whole
 * processes, alternated so that a slow moment of the host falls on all. `--repeat N` (default 7),
 * `--cli PATH` to measure another build's dist/cli/main.js.
 */
function main(): void {
  const at = process.argv.indexOf('--repeat');
  const repeat = at > 0 ? Number(process.argv[at + 1]) : 7;
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-cli-bench-'));
  try {
    buildHistory(dir, 1000);
    const cases = {
      node: ['-e', '0'],
      version: [CLI, '--version'],
      help: [CLI, '--help'],
      reports_list: [CLI, 'reports', 'list', '--output-dir', dir],
    };
    const times: Record<keyof typeof cases, number[]> = { node: [], version: [], help: [], reports_list: [] };
    // One warm-up each (the file cache), then the measured rounds.
    for (const args of Object.values(cases)) wallMs(args, dir);
    for (let i = 0; i < repeat; i++)
      for (const [name, args] of Object.entries(cases))
        times[name as keyof typeof cases].push(wallMs(args, dir));
    const ms = (name: keyof typeof cases) => Math.round(median(times[name]));
    console.log(
      JSON.stringify({
        node_e0_ms: ms('node'),
        version_ms: ms('version'),
        version_over_node_ms: ms('version') - ms('node'),
        help_ms: ms('help'),
        help_over_node_ms: ms('help') - ms('node'),
        reports_list_1000_runs_ms: ms('reports_list'),
        repeat,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
