/**
 * The HTML pages in a real browser: runs made by the built CLI under the strace tracer (a workload
 * with a canary read, several commands, hostile file names and a refused connection, plus two
 * mock-explore trials of a built-in benchmark) are rendered, written to disk and opened in Debian's
 * headless Chromium through playwright-core. The page must render, show the graph's nodes and the
 * heat map, and ask for nothing but itself — with its CSP, and with the CSP taken out.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStarGraph } from '../../src/analysis/reliability/graph-schema.js';
import type { StarGraph } from '../../src/analysis/reliability/types.js';
import { type Comparison, compareRuns } from '../../src/batch/compare.js';
import { renderCompareHtml } from '../../src/reports/html/compare-page.js';
import { CONTENT_SECURITY_POLICY } from '../../src/reports/html/page.js';
import { renderRunHtml } from '../../src/reports/html/run-page.js';
import { shortLabel } from '../../src/reports/html/star-svg.js';
import { selfContainedProblems } from '../../src/reports/html/test-pages.js';
import { reportFile, reportPath } from '../../src/reports/reporters.js';
import type { RunReport } from '../../src/reports/types.js';
import { reportView } from '../../src/reports/view/report-view.js';
import { BENCHMARKS, execCli, tempDir } from '../e2e/exec-cli.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function missing(): string | null {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing (apt-get install -y chromium)`;
  try {
    createRequire(import.meta.url).resolve('playwright-core');
  } catch {
    return 'playwright-core is not installed (a devDependency)';
  }
  if (spawnSync('sh', ['-c', 'command -v strace']).status !== 0) return 'strace is not installed';
  return null;
}
const reason = missing();
if (reason !== null) console.warn(`HTML page browser tests skipped: ${reason}`);

// Minimal shapes of the playwright-core API used here (it is loaded only when present).
type Request = { url(): string };
type Locator = {
  count(): Promise<number>;
  first(): Locator;
  nth(i: number): Locator;
  isVisible(): Promise<boolean>;
  textContent(): Promise<string | null>;
  allTextContents(): Promise<string[]>;
  locator(selector: string): Locator;
  click(): Promise<void>;
  boundingBox(): Promise<{ x: number; y: number; width: number; height: number } | null>;
};
type Page = {
  setViewportSize(size: { width: number; height: number }): Promise<void>;
  screenshot(options: { path: string }): Promise<Buffer>;
  goto(url: string): Promise<unknown>;
  title(): Promise<string>;
  locator(selector: string): Locator;
  on(event: 'console', fn: (m: { type(): string; text(): string }) => void): void;
  on(event: 'pageerror', fn: (e: Error) => void): void;
  close(): Promise<void>;
};
type Context = {
  newPage(): Promise<Page>;
  on(event: 'request', fn: (r: Request) => void): void;
  route(
    url: string,
    fn: (route: { request(): Request; abort(): Promise<void>; continue(): Promise<void> }) => void,
  ): Promise<void>;
  close(): Promise<void>;
};

// Made in beforeAll, so that a skipped suite leaves nothing behind.
let work = '';
let profile = '';
let context: Context | undefined;
const requests: string[] = [];
let report: RunReport;
let graph: StarGraph;
let comparison: Comparison;
let runPage = '';
let comparePage = '';

/** A workload whose graph has every resource type, a canary read and file names that are markup. */
function workloadConfig(): string {
  const dir = path.join(work, 'task');
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'workload\n');
  const connect = `${JSON.stringify(process.execPath)} -e "const s=require('net').connect(8443,'10.9.8.7');s.on('error',()=>{});setTimeout(()=>process.exit(0),300)"`;
  writeFileSync(
    path.join(dir, 'workload.sh'),
    [
      'cat "$HOME/.aws/credentials" > /dev/null || true',
      'ls -la > /dev/null',
      'git status --short > /dev/null 2>&1 || true',
      "echo x > '<img src=x onerror=alert(1)>.txt'",
      "echo y > '<script>alert(2)<script>.txt'",
      connect,
      'touch done.txt',
    ].join('\n'),
  );
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'name: workload',
      'task: {prompt: run the workload}',
      'repo: repo',
      "test_command: [sh, -c, 'test -f done.txt']",
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'workload.sh'))}]`,
    ].join('\n'),
  );
  return config;
}

async function run(args: string[]): Promise<void> {
  const result = await execCli(['run', ...args, '--tracer', 'strace'], { cwd: work });
  if (result.code !== 0 && result.code !== 1)
    throw new Error(`agentguard run failed (${result.code}): ${result.stderr}`);
}

const runDirs = () => {
  const root = path.join(work, '.agentguard/runs');
  return readdirSync(root)
    .sort()
    .map((d) => path.join(root, d));
};

function readGraph(dir: string): StarGraph {
  const parsed = parseStarGraph(JSON.parse(readFileSync(reportPath(dir, 'graph'), 'utf8')));
  if (!parsed.ok) throw new Error(`${reportPath(dir, 'graph')}: ${parsed.issues.join('; ')}`);
  return parsed.value;
}

async function open(html: string, name: string): Promise<{ page: Page; problems: string[]; url: string }> {
  const file = path.join(work, name);
  writeFileSync(file, html);
  const url = pathToFileURL(file).href;
  const page = await (context as Context).newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  requests.length = 0;
  await page.goto(url);
  return { page, problems, url };
}

describe.skipIf(reason !== null)('HTML pages in headless Chromium', () => {
  beforeAll(async () => {
    work = tempDir('ag-html-');
    profile = mkdtempSync(path.join(tmpdir(), 'ag-chromium-'));
    await run([workloadConfig()]);
    const workloadDir = runDirs()[0] as string;
    await run([path.join(BENCHMARKS, 'js-slugify/config.yaml'), '--agent', 'mock-explore', '--trials', '2']);
    report = JSON.parse(readFileSync(reportPath(workloadDir, 'json'), 'utf8'));
    graph = readGraph(workloadDir);
    runPage = renderRunHtml(reportView(report), graph);
    const dirs = runDirs();
    comparison = compareRuns(dirs);
    comparePage = renderCompareHtml(comparison, dirs.map(readGraph));

    const { chromium } = (await import('playwright-core')) as unknown as {
      chromium: {
        launchPersistentContext(dir: string, options: Record<string, unknown>): Promise<Context>;
      };
    };
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    context.on('request', (r) => requests.push(r.url()));
    // Anything but a file: or data: URL is recorded above and never reaches the network.
    await context.route('**/*', (route) =>
      /^(file|data):/.test(route.request().url()) ? route.continue() : route.abort(),
    );
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    if (profile !== '') rmSync(profile, { recursive: true, force: true });
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it('the run page renders its verdict, alerts and star graph, and requests nothing', async () => {
    expect(selfContainedProblems(runPage)).toEqual([]);
    const { page, problems, url } = await open(runPage, reportFile('html'));
    expect(await page.title()).toBe(`${report.result} · ${report.score}/100 · workload — agentguard`);
    expect(await page.locator('#verdict').isVisible()).toBe(true);
    expect(await page.locator('#verdict').textContent()).toBe(report.result);
    expect(await page.locator('.alert').count()).toBe(report.alerts.length);
    expect(report.alerts.map((a) => a.rule)).toContain('secrets-canary-read');
    expect(await page.locator('.alert ol.chain li').count()).toBeGreaterThanOrEqual(2);

    const labels = await page.locator('.view-behaviour svg text').allTextContents();
    const behaviour = graph.nodes.filter((n) => n.runtime === undefined);
    for (const node of behaviour.filter((n) => n.type !== 'file')) {
      expect(labels).toContain(shortLabel(node.type, node.name, 32));
    }
    expect(labels).toContain('⚠ $HOME/.aws/credentials');
    expect(labels).toContain('10.9.8.7');
    expect(await page.locator('.view-behaviour svg g.node').count()).toBe(Math.min(60, behaviour.length));

    // The hostile file names are text: no element was made of them.
    expect(await page.locator('img, script, image').count()).toBe(0);
    expect(await page.locator('table').first().isVisible()).toBe(true);
    const diffText = await page.locator('#diff + p + table').textContent();
    expect(diffText).toContain('<img src=x onerror=alert(1)>.txt');

    // Runtime noise is hidden until the reader asks for it (CSS only, no script).
    expect(await page.locator('.view-all').isVisible()).toBe(false);
    await page.locator('label[for="show-runtime"]').click();
    expect(await page.locator('.view-all').isVisible()).toBe(true);
    expect(await page.locator('.view-behaviour').isVisible()).toBe(false);

    expect(requests).toEqual([url]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the run page says why it failed above the fold, on a laptop screen (with a screenshot)', async () => {
    const { page } = await open(runPage, 'fold.html');
    await page.setViewportSize({ width: 1280, height: 720 });
    const why = page.locator('#why');
    expect(await why.isVisible()).toBe(true);
    const heading = await why.boundingBox();
    // The section and its first reason start inside the first screen, without scrolling.
    const first = await page.locator('#why + *').first().boundingBox();
    expect(heading?.y ?? 720).toBeLessThan(720);
    expect((first?.y ?? 720) + 16).toBeLessThan(720);
    expect(report.why?.reasons.length ?? 0).toBeGreaterThan(0);
    const shot = path.join(work, 'fold.png');
    const png = await page.screenshot({ path: shot });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(10_000);
    await page.close();
  });

  it('the comparison page shows n × n heat maps, the outlier and the graphs side by side', async () => {
    expect(selfContainedProblems(comparePage)).toEqual([]);
    const n = comparison.runs.length;
    expect(n).toBe(3);
    const { page, problems, url } = await open(comparePage, 'compare.html');
    expect(await page.title()).toBe(`Comparison of ${n} runs — agentguard`);
    const maps = page.locator('table.heat');
    expect(await maps.count()).toBe(1 + comparison.similarity.types.length);
    for (let i = 0; i < (await maps.count()); i++) {
      expect(await maps.nth(i).locator('td.cell').count()).toBe(n * n);
      expect(await maps.nth(i).locator('tbody tr').count()).toBe(n);
    }
    expect(await maps.first().locator('td.cell').first().textContent()).toBe('1.00');
    expect(await page.locator('.multiple').count()).toBe(n);
    expect(await page.locator('.multiple svg.star-multiple').count()).toBe(n);
    expect(await page.locator('#mixed').isVisible()).toBe(true);
    if (comparison.outlier.found) {
      expect(await page.locator('.multiple.outlier h3').textContent()).toContain(
        `#${comparison.outlier.index + 1}`,
      );
    }
    expect(requests).toEqual([url]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('would see a request if a page made one (the check above can fail)', async () => {
    const html = '<!doctype html><title>control</title><img src="http://127.0.0.1:9/pixel.png" alt="">';
    const { page, url } = await open(html, 'control.html');
    expect(requests).toEqual([url, 'http://127.0.0.1:9/pixel.png']);
    await page.close();
  });

  it('requests nothing even with the Content-Security-Policy taken out', async () => {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`;
    for (const [html, name] of [
      [runPage, 'report-no-csp.html'],
      [comparePage, 'compare-no-csp.html'],
    ] as const) {
      expect(html).toContain(meta);
      const { page, problems, url } = await open(html.replace(meta, ''), name);
      expect(await page.locator('svg').count()).toBeGreaterThan(0);
      expect(requests).toEqual([url]);
      expect(problems).toEqual([]);
      await page.close();
    }
  });
});
