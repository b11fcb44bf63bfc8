/**
 * `agentguard view` as a user starts it, without a browser: it refuses any address but loopback
 * and a port that is not one, answers 403 to a request without its token, and ends with exit 0
 * on SIGTERM, its port released. (The pages themselves: test/html/view.test.ts, in Chromium.)
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, execCli, tempDir } from './exec-cli.js';

const work = tempDir('ag-view-cmd-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('agentguard view', () => {
  it('listens on 127.0.0.1 only and refuses a port that is not one', async () => {
    const open = await execCli(['view', '--host', '0.0.0.0'], { cwd: work });
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('--host 0.0.0.0: agentguard view listens on 127.0.0.1 only');
    const port = await execCli(['view', '--port', 'http'], { cwd: work });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain(
      "--port 'http' is not a whole number from 0 to 65535. Fix: give a port from 1 to 65535, or leave it out.",
    );
  });

  it('answers 403 without the token, serves with it (no history yet), and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, 'view'], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => {
      err += c;
    });
    const url = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        const m = out.match(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/m);
        if (m) resolve(m[0]);
      });
    });
    const origin = new URL(url).origin;
    expect((await fetch(`${origin}/`)).status).toBe(403);
    expect((await fetch(`${origin}/wrong/`)).status).toBe(403);
    // The token stays in the address; no cookie is handed out (cookies ignore ports).
    const page = await fetch(url, { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(await page.text()).toContain('No run in progress.');
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(err).toContain('agentguard view: stopped');
    await expect(fetch(`${origin}/`)).rejects.toThrow();
  });
});
