/**
 * `run --trials N` is a batch like any other: it has a summary (kind `trials`), a row in
 * `reports batches`, a page in `reports site` and in `view`, and those pages draw the same
 * agents × tasks grid as its summary.html (one renderer: the markup must be identical).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, execCli, tempDir } from './exec-cli.js';

const work = tempDir('ag-trials-batch-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A task its agent solves in the first trial and not in the second (a counter beside the config). */
function task(): string {
  const dir = path.join(work, 'task');
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'trials\n');
  const counter = path.join(dir, 'counter');
  writeFileSync(
    path.join(dir, 'agent.sh'),
    [
      `n=$(cat ${counter} 2>/dev/null || echo 0)`,
      `echo $((n + 1)) > ${counter}`,
      'if [ "$n" = 0 ]; then echo done > out.txt; fi',
    ].join('\n'),
  );
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'name: half-solved',
      'task: {prompt: write out.txt}',
      'repo: repo',
      "test_command: [sh, -c, 'test -f out.txt']",
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
    ].join('\n'),
  );
  return config;
}

/** The grid's markup in a page: `<table class="grid">…</table>`. */
function grid(html: string): string {
  const m = html.match(/<table class="grid">.*?<\/table>/s);
  expect(m, 'the page has no agents × tasks grid').not.toBeNull();
  return (m as RegExpMatchArray)[0];
}

describe('run --trials as a batch', () => {
  it('is listed, summarised and drawn with the same grid by summary.html, reports site and view', async () => {
    const r = await execCli(['run', task(), '--trials', '2', '--sandbox', 'local', '--tracer', 'off'], {
      cwd: work,
    });
    expect(r.code, r.stderr).toBe(1);
    const printed = r.stdout.match(/^batch (\S+): (\S+summary\.html)$/m);
    expect(printed, r.stdout).not.toBeNull();
    const [, batchId, summaryHtml] = printed as [string, string, string];
    const summary = JSON.parse(readFileSync(path.join(path.dirname(summaryHtml), 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ kind: 'trials', batch_id: batchId, complete: true, attempts_planned: 2 });
    expect(summary.rows.map((x: { result: string }) => x.result)).toEqual(['PASS', 'FAIL']);
    const cell = summary.groups.find((g: { task: string | null }) => g.task === 'half-solved');
    expect(cell).toMatchObject({ agent: 'agent-command', trials: 2, passes: 1 });
    const expected = grid(readFileSync(summaryHtml, 'utf8'));
    expect(expected).toContain('<strong>50 %</strong> <small>1/2</small>');

    const listed = JSON.parse((await execCli(['reports', 'batches', '--json'], { cwd: work })).stdout);
    expect(listed).toEqual([expect.objectContaining({ batch_id: batchId, kind: 'trials', runs: 2 })]);

    const site = path.join(work, 'site');
    const s = await execCli(['reports', 'site', site], { cwd: work });
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/2 runs \(2 pages\), 1 batches/);
    const sitePage = readFileSync(path.join(site, 'batches', `${batchId}.html`), 'utf8');
    expect(sitePage).toContain(`trials batch <span class="mono">${batchId}</span>`);
    expect(grid(sitePage)).toBe(expected);

    const viewer = spawn(process.execPath, [CLI, 'view', '--port', '0'], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        viewer.stdout.on('data', (c) => {
          out += c;
          const m = out.match(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/m);
          if (m) resolve(m[0]);
        });
        viewer.on('exit', (code) => reject(new Error(`viewer exited ${code}`)));
      });
      const index = await (await fetch(url)).text();
      expect(index).toContain(`href="batches/${batchId}.html"`);
      const page = await fetch(`${url}batches/${batchId}.html`);
      expect(page.status).toBe(200);
      expect(grid(await page.text())).toBe(expected);
    } finally {
      const exited = new Promise((resolve) => viewer.on('exit', resolve));
      viewer.kill('SIGTERM');
      await exited;
    }
    expect(existsSync(path.join(work, '.agentguard', 'history.db'))).toBe(true);
  }, 120_000);
});
