/**
 * `agentguard view` in headless Chromium (Debian's, through playwright-core), against the built
 * CLI: real runs recorded in history (an attack with alerts, a one-run matrix batch), the viewer
 * started as a user starts it, its printed address opened. (a) The runs list, a run's report and a
 * batch page, screenshotted; (b) a real attack run started in the background, its live page opened
 * while it runs, watched until the live guard's alert appears. The viewer ends cleanly on SIGINT.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, CLI, execCli, tempDir } from '../e2e/exec-cli.js';

const CHROMIUM = '/usr/bin/chromium';
function missing(): string | null {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing (apt-get install -y chromium)`;
  try {
    createRequire(import.meta.url).resolve('playwright-core');
  } catch {
    return 'playwright-core is not installed (a devDependency)';
  }
  return null;
}
const reason = missing();
if (reason !== null) console.warn(`agentguard view browser test skipped: ${reason}`);
// A real agent (codex, offline with a scripted model) gives a report with a trajectory section.
const cache = process.env.AGENTGUARD_AGENT_CACHE ?? path.join(os.homedir(), '.cache/agentguard/agents');
const codexReady = existsSync(path.join(cache, 'codex/node_modules/.bin/codex'));
if (reason === null && !codexReady)
  console.warn("agentguard view's trajectory check skipped: needs scripts/install-test-agents.sh codex");

type Locator = {
  count(): Promise<number>;
  first(): Locator;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  click(): Promise<void>;
  allTextContents(): Promise<string[]>;
  waitFor(o: { state?: 'attached' | 'visible'; timeout?: number }): Promise<void>;
};
type Page = {
  goto(url: string): Promise<unknown>;
  title(): Promise<string>;
  url(): string;
  locator(selector: string): Locator;
  on(event: 'pageerror', fn: (e: Error) => void): void;
  on(event: 'console', fn: (m: { type(): string; text(): string }) => void): void;
  screenshot(o: { path?: string; fullPage?: boolean }): Promise<Buffer>;
  evaluate<T>(fn: string | (() => T | Promise<T>)): Promise<T>;
  setViewportSize(s: { width: number; height: number }): Promise<void>;
};
type Context = {
  newPage(): Promise<Page>;
  cookies(): Promise<unknown[]>;
  on(event: 'request', fn: (r: { url(): string }) => void): void;
  close(): Promise<void>;
};

const work = tempDir('ag-view-');
const profile = mkdtempSync(path.join(tmpdir(), 'ag-chromium-'));
const shots = path.join(work, 'screenshots');
const runsDir = path.join(work, '.agentguard', 'runs');
let context: Context | undefined;
let viewer: ChildProcess | undefined;
let viewerErr = '';
let base = '';
let printed = '';
let attack: { run_id: string };
let codex: { run_id: string } | undefined;
const cli = (...args: string[]) => execCli(args, { cwd: work });

afterAll(async () => {
  await context?.close();
  if (viewer && viewer.exitCode === null) viewer.kill('SIGKILL');
  rmSync(profile, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

beforeAll(async () => {
  if (reason !== null) return;
  mkdirSync(shots);
  const a = await cli(
    'run',
    path.join(BENCHMARKS, 'attacks', 'exfil-ssh-key', 'config.yaml'),
    '--tracer',
    'strace',
    '--json',
  );
  expect(a.code, a.stderr).toBe(1);
  attack = JSON.parse(a.stdout);
  const m = path.join(work, 'm.yaml');
  writeFileSync(m, `tasks: [${path.join(BENCHMARKS, 'sh-logrotate/config.yaml')}]\nagents: [mock-solve]\n`);
  const mx = await cli('matrix', m, '--tracer', 'off');
  expect(mx.code, mx.stderr).toBe(0);
  if (codexReady) {
    const c = await execCli(
      [
        'run',
        path.join(BENCHMARKS, 'agents', 'citation-check', 'codex-malicious.yaml'),
        '--tracer',
        'strace',
        '--json',
      ],
      { cwd: work, env: { AGENTGUARD_AGENT_CACHE: cache } },
    );
    expect(c.code, c.stderr).toBe(1);
    codex = JSON.parse(c.stdout);
  }

  viewer = spawn(process.execPath, [CLI, 'view', '--port', '0'], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  viewer.stderr?.on('data', (c) => {
    viewerErr += c;
  });
  printed = await new Promise<string>((resolve, reject) => {
    let out = '';
    viewer?.stdout?.on('data', (c) => {
      out += c;
      const url = out.match(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/m);
      if (url) resolve(url[0]);
    });
    viewer?.on('exit', (code) => reject(new Error(`viewer exited ${code}: ${viewerErr}`)));
  });
  base = new URL(printed).origin;

  const { chromium } = (await import('playwright-core')) as unknown as {
    chromium: { launchPersistentContext(dir: string, o: Record<string, unknown>): Promise<Context> };
  };
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
}, 240_000);

describe.skipIf(reason !== null)('agentguard view in headless Chromium', () => {
  let page: Page;
  const requests: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    if (!context) throw new Error('no browser');
    context.on('request', (q) => requests.push(q.url()));
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      // A CSP violation is reported on the console: no page may cause one.
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('refuses a browser without the token', async () => {
    const bare = await context?.newPage();
    await bare?.goto(`${base}/`);
    expect(await bare?.locator('body').textContent()).toContain('forbidden');
  });

  it('lists the runs and batches from history and opens a run report and a batch page', async () => {
    await page.goto(printed);
    // The token stays in the address (never in a cookie): the pages' links are relative to it.
    expect(page.url()).toBe(printed);
    expect(await page.title()).toBe('agentguard runs');
    expect(await page.locator('#runs-body tr').count()).toBe(codexReady ? 3 : 2);
    expect(await page.locator('#batches tbody tr').count()).toBe(1);
    const index = path.join(shots, 'index.png');
    await page.screenshot({ path: index, fullPage: true });
    expect(statSync(index).size).toBeGreaterThan(10_000);

    await page.locator(`a.run-link[href="runs/${attack.run_id}.html"]`).click();
    expect(page.url()).toBe(`${printed}runs/${attack.run_id}.html`);
    expect(await page.locator('#verdict').textContent()).toBe('FAIL');
    // The star graph, drawn inline, and the live guard's rule among the report's alerts.
    expect(await page.locator('.graph-box svg').count()).toBeGreaterThan(0);
    expect(await page.locator('main').textContent()).toContain('secrets-canary-read');
    const report = path.join(shots, 'report.png');
    await page.screenshot({ path: report, fullPage: true });
    expect(statSync(report).size).toBeGreaterThan(10_000);

    await page.locator('a.site-index').click();
    await page.locator('a.batch-link').first().click();
    expect(page.url()).toMatch(new RegExp(`^${printed}batches/[a-z0-9._-]+\\.html$`));
    expect(await page.locator('a.run-link').count()).toBe(1);
    // The agents × tasks grid summary.html draws: 1 agent × (1 task + all tasks).
    expect(await page.locator('table.grid td.grid-cell').count()).toBe(2);
  });

  it.skipIf(!codexReady)("shows a real agent's trajectory beside what ran, in its report", async () => {
    await page.goto(`${printed}runs/${codex?.run_id}.html`);
    expect(await page.locator('#verdict').textContent()).toBe('FAIL');
    const trajectory = await page.locator('#trajectory').count();
    expect(trajectory).toBe(1);
    expect(await page.locator('main').textContent()).toContain('What the model asked for, and what ran');
    const shot = path.join(shots, 'trajectory.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
  });

  it("shows a real run's live alert on its live page as the guard raises it", async () => {
    // The attack case as shipped, its scripted agent pausing before it follows the skill, so the
    // page is open and streaming before the alert exists.
    const cases = path.join(work, 'attacks');
    cpSync(path.join(BENCHMARKS, 'attacks', 'exfil-ssh-key'), path.join(cases, 'exfil-ssh-key'), {
      recursive: true,
    });
    // The paused script goes beside the case, where its config names it ({config_dir}/../…): the
    // sandbox shows the agent that file and the case's folder.
    const caseDir = path.join(cases, 'exfil-ssh-key');
    const agent = readFileSync(path.join(BENCHMARKS, 'attacks', 'scripted-agent.sh'), 'utf8');
    const paused = agent.replace(
      'echo "agent: applied the fix"\n',
      'echo "agent: applied the fix"\nsleep 6\n',
    );
    expect(paused).not.toBe(agent);
    expect(readFileSync(path.join(caseDir, 'config.yaml'), 'utf8')).toContain(
      '{config_dir}/../scripted-agent.sh',
    );
    writeFileSync(path.join(cases, 'scripted-agent.sh'), paused);
    const before = new Set(readdirSync(runsDir));
    const run = execCli(
      ['run', path.join(caseDir, 'config.yaml'), '--tracer', 'strace', '--guard', 'audit'],
      { cwd: work },
    );
    let runId: string | undefined;
    for (let i = 0; i < 400 && runId === undefined; i++) {
      runId = readdirSync(runsDir).find((d) => !before.has(d));
      if (runId === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    expect(runId).toBeDefined();
    const alertsFile = path.join(runsDir, runId ?? '', 'guard', 'alerts.jsonl');
    await page.goto(printed);
    expect(await page.locator('a.live-link').allTextContents()).toContain(runId);
    await page.locator(`a.live-link[href="live/${runId}"]`).click();
    await page.locator('#status').waitFor({ state: 'visible' });
    expect(existsSync(alertsFile)).toBe(false);
    // The page's own clock of when the row arrived (devtools evaluation is not subject to its CSP).
    await page.evaluate(() => {
      const w = window as unknown as { seenAt: number };
      w.seenAt = 0;
      const body = document.getElementById('alerts-body') as HTMLElement;
      new MutationObserver(() => {
        if (w.seenAt === 0 && body.querySelector('tr.alert-row')) w.seenAt = Date.now();
      }).observe(body, { childList: true });
    });
    // When the guard's line reached the file, as seen from here, for the latency to the page.
    let written = 0;
    const poll = setInterval(() => {
      if (written === 0 && existsSync(alertsFile) && statSync(alertsFile).size > 0) written = Date.now();
    }, 5);
    const row = page.locator('tr.alert-row[data-rule="secrets-canary-read"]');
    await row.waitFor({ state: 'attached', timeout: 90_000 });
    clearInterval(poll);
    const shown = await page.evaluate(() => (window as unknown as { seenAt: number }).seenAt);
    expect(await row.textContent()).toContain('.ssh/id_rsa');
    expect(written).toBeGreaterThan(0);
    // The file is created by the first alert's append: its birth time, where the file system
    // records one, is when the line was written, finer than this process's polling.
    const born = statSync(alertsFile).birthtimeMs;
    const from = born > 0 ? born : written;
    expect(shown).toBeGreaterThan(0);
    console.log(
      `view: live alert on the page ${Math.round(shown - from)} ms after its line was written (${born > 0 ? 'file birth time' : 'polled'})`,
    );
    const live = path.join(shots, 'live.png');
    await page.screenshot({ path: live, fullPage: true });
    expect(statSync(live).size).toBeGreaterThan(10_000);
    const finished = await run;
    expect(finished.code, finished.stderr).toBe(1);
    await page.locator('#report-link').waitFor({ state: 'attached', timeout: 30_000 });
    expect(await page.locator('#events-body').textContent()).toContain('window-close');
    await page.locator('#report-link').click();
    expect(page.url()).toBe(`${printed}runs/${runId}.html`);
    expect(await page.locator('#verdict').textContent()).toBe('FAIL');
  }, 180_000);

  it('asked for nothing beyond the viewer and broke no CSP', () => {
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(r.startsWith(`${base}/`), r).toBe(true);
    expect(errors).toEqual([]);
  });

  it('gives another HTTP server on 127.0.0.1 nothing of its credential', async () => {
    // Cookies ignore ports: a cookie the viewer set for 127.0.0.1 would go to this server too.
    const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
    const other = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>another server</p>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const port = (other.address() as AddressInfo).port;
      const token = new URL(printed).pathname.split('/')[1] ?? '';
      expect(token).toHaveLength(43);
      const tab = await context?.newPage();
      for (const host of ['127.0.0.1', 'localhost']) {
        await tab?.goto(`http://${host}:${port}/`);
        expect(await tab?.locator('body').textContent()).toContain('another server');
      }
      // A page of the viewer sends the browser there itself (as a link in a report would): the
      // address it leaves, which carries the token, does not go along (no Referer).
      await tab?.goto(printed);
      void tab?.evaluate(`location.href = 'http://127.0.0.1:${port}/from-viewer'`).catch(() => {});
      for (let i = 0; i < 100 && !seen.some((r) => r.url === '/from-viewer'); i++)
        await new Promise((r) => setTimeout(r, 100));
      const left = seen.find((r) => r.url === '/from-viewer');
      expect(left?.headers.referer).toBeUndefined();
      // The browser went there after using the viewer (every test above): it was asked three times,
      // and never received a cookie or anything else that carries the token.
      expect(seen.length).toBeGreaterThanOrEqual(3);
      for (const r of seen) {
        expect(r.headers.cookie).toBeUndefined();
        expect(JSON.stringify(r)).not.toContain(token);
      }
      expect(await context?.cookies()).toEqual([]);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('stops on SIGINT, releasing its port', async () => {
    const exited = new Promise<number | null>((resolve) => viewer?.on('exit', (code) => resolve(code)));
    viewer?.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(viewerErr).toContain('agentguard view: stopped');
    await expect(fetch(`${base}/`)).rejects.toThrow();
  });
});
