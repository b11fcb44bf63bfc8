/**
 * summary.html in headless Chromium (Debian's, through playwright-core), as report.html is tested:
 * a real matrix made by the built CLI; the page must render the agents × tasks grid with a colour
 * per pass rate, link every attempt to a report that exists, and ask for nothing but itself.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
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
if (reason !== null) console.warn(`batch page browser test skipped: ${reason}`);

type Locator = {
  count(): Promise<number>;
  nth(i: number): Locator;
  getAttribute(name: string): Promise<string | null>;
  textContent(): Promise<string | null>;
  evaluate<T>(fn: (el: Element) => T): Promise<T>;
};
type Page = {
  goto(url: string): Promise<unknown>;
  title(): Promise<string>;
  locator(selector: string): Locator;
  on(event: 'pageerror', fn: (e: Error) => void): void;
};
type Context = {
  newPage(): Promise<Page>;
  on(event: 'request', fn: (r: { url(): string }) => void): void;
  close(): Promise<void>;
};

const work = tempDir('ag-batch-html-');
const profile = mkdtempSync(path.join(tmpdir(), 'ag-chromium-'));
let context: Context | undefined;
afterAll(async () => {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(reason !== null)('summary.html in headless Chromium', () => {
  it('shows the agents × tasks grid coloured by pass rate and links every attempt to its report', async () => {
    const m = path.join(work, 'm.yaml');
    writeFileSync(
      m,
      `tasks: [${path.join(BENCHMARKS, 'js-slugify/config.yaml')}, ${path.join(BENCHMARKS, 'sh-logrotate/config.yaml')}]\nagents: [mock-solve, mock-noop]\ntrials: 2\n`,
    );
    const r = await execCli(['matrix', m, '--tracer', 'off', '--workers', '2'], { cwd: work });
    expect(r.code, r.stderr).toBe(1);
    const root = path.join(work, '.agentguard/batches');
    const dir = path.join(root, readdirSync(root)[0] as string);
    const file = path.join(dir, 'summary.html');
    expect(existsSync(file)).toBe(true);

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
    const requests: string[] = [];
    context.on('request', (q) => requests.push(q.url()));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    expect(await page.title()).toMatch(/^agentguard matrix /);
    // 2 agents × (2 tasks + all tasks).
    const cells = page.locator('table.grid td.grid-cell');
    expect(await cells.count()).toBe(6);
    const first = await cells.nth(0).textContent();
    expect(first).toContain('100 %');
    expect(first).toContain('2/2');
    expect(first).toMatch(/95 % 34 %–100 %/);
    const green = await cells.nth(0).evaluate((el) => getComputedStyle(el).backgroundColor);
    const red = await cells.nth(3).evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(green).not.toBe(red);
    const links = page.locator('a.run-link');
    expect(await links.count()).toBe(8);
    for (let i = 0; i < 8; i++) {
      const href = (await links.nth(i).getAttribute('href')) as string;
      expect(existsSync(path.resolve(dir, href)), href).toBe(true);
    }
    // Tracer off: each cell's two runs have nothing to compare, and the heat maps say so.
    const offMaps = page.locator('div.cell-heat');
    expect(await offMaps.count()).toBe(4);
    expect(await page.locator('div.cell-heat table.heat td.cell.none').count()).toBe(16);
    expect(await offMaps.nth(0).textContent()).toContain('nothing to compare');
    expect(errors).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
  }, 120_000);

  it("draws each cell's similarity heat map from traced runs, labelled by run id", async () => {
    const cwd = tempDir('ag-batch-heat-');
    const m = path.join(cwd, 'm.yaml');
    writeFileSync(
      m,
      `tasks: [${path.join(BENCHMARKS, 'js-slugify/config.yaml')}]\nagents: [mock-solve]\ntrials: 3\n`,
    );
    // A real tracer, so that the runs have commands and files to compare.
    const r = await execCli(['matrix', m, '--tracer', 'auto', '--workers', '2', '--json'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    const sim = s.groups.find((g: { task: string | null }) => g.task === 'js-slugify').similarity;
    const runIds: string[] = s.rows.map((x: { run_id: string }) => x.run_id);
    expect(sim.run_ids).toEqual(runIds);
    expect(sim.matrix).toHaveLength(3);
    expect(
      sim.matrix.every((row: unknown[]) => row.length === 3 && row.every((v) => typeof v === 'number')),
    ).toBe(true);
    const root = path.join(cwd, '.agentguard/batches');
    const file = path.join(root, readdirSync(root)[0] as string, 'summary.html');

    const page = await (context as Context).newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    const map = page.locator('div.cell-heat[data-agent="mock-solve"][data-task="js-slugify"]');
    expect(await map.count()).toBe(1);
    // Rows are labelled by the full run ids, in attempt order; columns by their suffixes.
    const rowHeads = page.locator('div.cell-heat table.heat tbody th');
    expect(await rowHeads.count()).toBe(3);
    for (let i = 0; i < 3; i++) expect(await rowHeads.nth(i).textContent()).toBe(runIds[i]);
    const colHeads = page.locator('div.cell-heat table.heat thead th[title]');
    expect(await colHeads.nth(0).getAttribute('title')).toBe(`${runIds[0]} · trial 1`);
    // 3 × 3 coloured cells, each showing its value, coloured by it: a run is identical to itself
    // (1, the darkest blue of the scale).
    const cells = page.locator('div.cell-heat table.heat td.cell');
    expect(await cells.count()).toBe(9);
    for (let i = 0; i < 3; i++) {
      const value = sim.matrix[i][i] as number;
      expect(value).toBe(1);
      const diagonal = cells.nth(i * 4);
      expect(await diagonal.textContent()).toMatch(/^1(\.0+)?$/);
      expect(await diagonal.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(8, 48, 107)');
    }
    const offDiagonal = sim.matrix[0][1] as number;
    expect(Number(await cells.nth(1).textContent())).toBeCloseTo(offDiagonal, 2);
    expect(await cells.nth(1).getAttribute('title')).toContain(
      `${runIds[0]} · trial 1 vs ${runIds[1]} · trial 2`,
    );
    expect(errors).toEqual([]);
    rmSync(cwd, { recursive: true, force: true });
  }, 180_000);
});
