/**
 * `agentguard reports site` in headless Chromium (Debian's, through playwright-core), as the other
 * pages are tested: real runs made by the built CLI (a task whose name is a <script> element, an
 * attack with alerts, a two-run matrix), a site written from their history, opened from disk.
 * The index must draw and filter the runs from its embedded JSON, show the hostile name as text,
 * link each run's page and each batch page, ask for nothing but itself, and carry no canary token.
 */
import {
  cpSync,
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
import { BENCHMARKS, execCli, tempDir } from '../e2e/exec-cli.js';

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
if (reason !== null) console.warn(`reports site browser test skipped: ${reason}`);

type Locator = {
  count(): Promise<number>;
  nth(i: number): Locator;
  first(): Locator;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  selectOption(value: string): Promise<unknown>;
  fill(value: string): Promise<void>;
  click(): Promise<void>;
  allTextContents(): Promise<string[]>;
};
type Page = {
  goto(url: string): Promise<unknown>;
  title(): Promise<string>;
  url(): string;
  locator(selector: string): Locator;
  on(event: 'pageerror', fn: (e: Error) => void): void;
  on(event: 'dialog', fn: (d: { dismiss(): Promise<void> }) => void): void;
  on(event: 'console', fn: (m: { type(): string; text(): string }) => void): void;
  screenshot(o: { path?: string; fullPage?: boolean }): Promise<Buffer>;
  evaluate<T, A>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T>;
  setViewportSize(s: { width: number; height: number }): Promise<void>;
  close(): Promise<void>;
};
type Context = {
  newPage(): Promise<Page>;
  on(event: 'request', fn: (r: { url(): string }) => void): void;
  close(): Promise<void>;
};

const HOSTILE_NAME = '<script>alert("site")</script>';
const GITHUB_TOKEN = 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789';
const work = tempDir('ag-site-');
const profile = mkdtempSync(path.join(tmpdir(), 'ag-chromium-'));
const site = path.join(work, 'site');
let context: Context | undefined;
let attack: { run_id: string; run_dir: string };
let hostile: { run_id: string; run_dir: string };
let canaryTokens: string[] = [];
const cli = (...args: string[]) => execCli(args, { cwd: work });

afterAll(async () => {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

beforeAll(async () => {
  if (reason !== null) return;
  const task = path.join(work, 'hostile-task');
  cpSync(path.join(BENCHMARKS, 'js-slugify'), task, { recursive: true });
  const config = path.join(task, 'config.yaml');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(/^name: .*$/m, `name: ${JSON.stringify(HOSTILE_NAME)}`),
  );
  const h = await cli('run', config, '--agent', 'mock-solve', '--tracer', 'off', '--json');
  expect(h.code, h.stderr).toBe(0);
  hostile = JSON.parse(h.stdout);
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
  writeFileSync(
    m,
    `tasks: [${path.join(BENCHMARKS, 'sh-logrotate/config.yaml')}]\nagents: [mock-solve, mock-noop]\n`,
  );
  const mx = await cli('matrix', m, '--tracer', 'off');
  expect(mx.code, mx.stderr).toBe(1);
  // A report written by some older tool, holding the run's canary token and a credential: the
  // site must not carry either, whatever the report says.
  canaryTokens = (
    JSON.parse(readFileSync(path.join(attack.run_dir, 'evidence', 'canaries.json'), 'utf8')) as {
      canaries: { token: string }[];
    }
  ).canaries.map((c) => c.token);
  const html = path.join(attack.run_dir, 'report.html');
  writeFileSync(
    html,
    readFileSync(html, 'utf8').replace(
      '<main>\n',
      `<main>\n<p id="leak">${canaryTokens.join(' ')} ${GITHUB_TOKEN}</p>\n`,
    ),
  );
  const s = await cli('reports', 'site', site);
  expect(s.code, s.stderr).toBe(0);
  expect(s.stdout).toMatch(/index\.html: 4 runs \(4 pages\), 1 batches/);
}, 240_000);

describe.skipIf(reason !== null)('reports site on disk', () => {
  it('every page has a CSP that forbids requests, and no page carries a canary token or the credential', () => {
    const pages = [
      'index.html',
      ...readdirSync(path.join(site, 'runs')).map((f) => `runs/${f}`),
      ...readdirSync(path.join(site, 'batches')).map((f) => `batches/${f}`),
    ];
    expect(pages).toHaveLength(1 + 4 + 1);
    for (const p of pages) {
      const text = readFileSync(path.join(site, p), 'utf8');
      expect(text, p).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
      for (const token of [...canaryTokens, GITHUB_TOKEN])
        expect(text.includes(token), `${p} holds ${token}`).toBe(false);
    }
    // A page is its run's report.html and a link back, unchanged where nothing was secret.
    const own = readFileSync(path.join(hostile.run_dir, 'report.html'), 'utf8');
    expect(readFileSync(path.join(site, 'runs', `${hostile.run_id}.html`), 'utf8')).toBe(
      own.replace('<main>\n', '<main>\n<nav><a class="site-index" href="../index.html">all runs</a></nav>\n'),
    );
    const attackPage = readFileSync(path.join(site, 'runs', `${attack.run_id}.html`), 'utf8');
    expect(attackPage).toMatch(/<p id="leak">\[REDACTED:canary-ssh-key[^\]]*\] .*\[REDACTED:github-token/);
    // The hostile name is inside the embedded JSON only as \u escapes, never as a tag.
    const index = readFileSync(path.join(site, 'index.html'), 'utf8');
    expect(index.match(/<script/g)).toHaveLength(2);
    expect(index).toContain('\\u003cscript\\u003ealert(\\"site\\")\\u003c/script\\u003e');
  });

  it('refuses a folder it did not write, and rewrites its own without stale pages', async () => {
    const foreign = path.join(work, 'foreign');
    mkdirSync(foreign);
    writeFileSync(path.join(foreign, 'notes.txt'), 'mine');
    const r = await cli('reports', 'site', foreign);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `agentguard: ${foreign} is not empty and is not a site agentguard wrote (no .agentguard-site); nothing was written. Fix: give 'reports site' a new or empty folder.`,
    );
    expect(readdirSync(foreign)).toEqual(['notes.txt']);
    const noHistory = await cli(
      'reports',
      'site',
      path.join(work, 'never'),
      '--output-dir',
      path.join(work, 'empty'),
    );
    expect(noHistory.code).toBe(2);
    expect(noHistory.stderr).toContain('history.db does not exist yet');
    expect(existsSync(path.join(work, 'never'))).toBe(false);
    const again = path.join(work, 'again');
    expect((await cli('reports', 'site', again)).code).toBe(0);
    expect(readdirSync(path.join(again, 'runs'))).toHaveLength(4);
    const only = await cli('reports', 'site', again, '--rule', 'secrets-canary-read');
    expect(only.code, only.stderr).toBe(0);
    expect(readdirSync(path.join(again, 'runs'))).toEqual([`${attack.run_id}.html`]);
    expect(existsSync(path.join(again, 'batches'))).toBe(false);
  });
});

describe.skipIf(reason !== null)('reports site in headless Chromium', () => {
  let page: Page;
  const requests: string[] = [];
  const errors: string[] = [];
  let dialogs = 0;

  beforeAll(async () => {
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
    context.on('request', (q) => requests.push(q.url()));
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      // A CSP violation is reported on the console: the page must cause none.
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('dialog', (d) => {
      dialogs += 1;
      void d.dismiss();
    });
    await page.setViewportSize({ width: 1400, height: 900 });
  }, 60_000);

  it('draws every run from the embedded JSON, a <script> task name shown as text', async () => {
    await page.goto(pathToFileURL(path.join(site, 'index.html')).href);
    expect(await page.title()).toBe('agentguard runs');
    expect(await page.locator('#runs-body tr').count()).toBe(4);
    expect(await page.locator('#run-count').textContent()).toBe('4 of 4 runs');
    const tasks = await page.locator('#runs-body td.task').allTextContents();
    expect(tasks).toContain(HOSTILE_NAME);
    // Only the page's own two script elements: the name did not become one, and nothing ran.
    expect(await page.locator('script').count()).toBe(2);
    expect(dialogs).toBe(0);
    expect(errors).toEqual([]);
  });

  it('filters in the browser by result, rule, check and agent', async () => {
    await page.goto(pathToFileURL(path.join(site, 'index.html')).href);
    await page.locator('#f-result').selectOption('PASS');
    expect(await page.locator('#run-count').textContent()).toBe('2 of 4 runs');
    await page.locator('#f-result').selectOption('');
    await page.locator('#f-rule').fill('secrets-canary-read');
    expect(await page.locator('#runs-body a.run-link').allTextContents()).toEqual([attack.run_id]);
    await page.locator('#f-rule').fill('');
    await page.locator('#f-check').fill('tests-pass');
    expect(await page.locator('#run-count').textContent()).toBe('1 of 4 runs');
    await page.locator('#f-check').fill('');
    await page.locator('#f-agent').selectOption('mock-solve');
    expect(await page.locator('#run-count').textContent()).toBe('2 of 4 runs');
    await page.locator('#f-since').fill('2999-01-01');
    expect(await page.locator('#run-count').textContent()).toBe('0 of 4 runs');
    expect(errors).toEqual([]);
  });

  it('links each run to its report page and back, and a batch to its page', async () => {
    await page.goto(pathToFileURL(path.join(site, 'index.html')).href);
    const link = page.locator(`#runs-body a.run-link[href="runs/${hostile.run_id}.html"]`);
    expect(await link.count()).toBe(1);
    await link.click();
    expect(page.url()).toBe(pathToFileURL(path.join(site, 'runs', `${hostile.run_id}.html`)).href);
    expect(await page.title()).toContain(HOSTILE_NAME);
    await page.locator('a.site-index').click();
    expect(page.url()).toBe(pathToFileURL(path.join(site, 'index.html')).href);
    await page.locator('#batches a.batch-link').first().click();
    expect(await page.title()).toMatch(/^agentguard matrix batch /);
    expect(await page.locator('a.run-link').count()).toBe(2);
    await page.locator('a.run-link').first().click();
    expect(await page.title()).toMatch(/sh-logrotate/);
    expect(errors).toEqual([]);
    expect(dialogs).toBe(0);
    expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
  });

  it('screenshot: the table is drawn with a pass and a fail mark, and filtering to PASS removes the fail marks', async () => {
    await page.goto(pathToFileURL(path.join(site, 'index.html')).href);
    const all = await page.screenshot({ path: path.join(work, 'site-index.png'), fullPage: true });
    await page.locator('#f-result').selectOption('PASS');
    const passOnly = await page.screenshot({ fullPage: true });
    // Decode both PNGs in a blank page and count the pass-green (#137333) and fail-red (#b3261e)
    // pixels of the rows' left borders.
    const blank = await (context as Context).newPage();
    const count = (png: Buffer) =>
      blank.evaluate(async (b64: string) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
        ctx.drawImage(img, 0, 0);
        const px = ctx.getImageData(0, 0, img.width, img.height).data;
        let green = 0;
        let red = 0;
        for (let i = 0; i < px.length; i += 4) {
          const [r, g, b] = [px[i] as number, px[i + 1] as number, px[i + 2] as number];
          if (Math.abs(r - 0x13) < 8 && Math.abs(g - 0x73) < 8 && Math.abs(b - 0x33) < 8) green += 1;
          if (Math.abs(r - 0xb3) < 8 && Math.abs(g - 0x26) < 8 && Math.abs(b - 0x1e) < 8) red += 1;
        }
        return { width: img.width, height: img.height, green, red };
      }, png.toString('base64'));
    const before = await count(all);
    const after = await count(passOnly);
    await blank.close();
    expect(existsSync(path.join(work, 'site-index.png'))).toBe(true);
    expect(before.width).toBe(1400);
    expect(before.green).toBeGreaterThan(50);
    expect(before.red).toBeGreaterThan(50);
    expect(after.green).toBeGreaterThan(50);
    expect(after.red).toBe(0);
  });
});
