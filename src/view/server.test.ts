import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConfig } from '../analysis/test-bundle.js';
import { runPath } from '../evidence/layout.js';
import { ViewServer } from './server.js';

const out = mkdtempSync(path.join(tmpdir(), 'ag-view-'));
const RUN = '20261203-120000-0badc0de';
const TOKEN = 'c0ffeec0ffeec0ffeec0ffee';
const runDir = path.join(out, 'runs', RUN);
let server: ViewServer;

type Answer = { status: number; headers: IncomingMessage['headers']; body: string };

function get(
  pathAndQuery: string,
  opts: { token?: boolean; cookie?: string; host?: string; method?: string } = {},
): Promise<Answer> {
  const q = opts.token === false ? '' : `${pathAndQuery.includes('?') ? '&' : '?'}token=${server.token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: `${pathAndQuery}${opts.cookie === undefined ? q : ''}`,
        method: opts.method ?? 'GET',
        headers: {
          host: opts.host ?? `127.0.0.1:${server.port}`,
          ...(opts.cookie === undefined ? {} : { cookie: opts.cookie }),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const cookie = () => `agentguard_view_${server.port}=${server.token}`;

beforeAll(async () => {
  mkdirSync(path.join(runDir, 'evidence'), { recursive: true });
  writeFileSync(runPath(runDir, 'timeline'), '{"ts":0,"phase":"prepare","event":"start"}\n');
  // A run folder that is a symlink to elsewhere is never served.
  symlinkSync(tmpdir(), path.join(out, 'runs', '20261203-120000-5ca1ab1e'));
  server = await ViewServer.start({ outputDir: out, port: 0, pollMs: 50 });
});
afterAll(async () => {
  await server.stop();
  rmSync(out, { recursive: true, force: true });
});

describe('ViewServer access', () => {
  it('answers 403 without the token, with a wrong one, or addressed to another host', async () => {
    expect((await get('/', { token: false })).status).toBe(403);
    expect((await get('/?token=nope', { token: false })).status).toBe(403);
    expect((await get('/', { cookie: `agentguard_view_${server.port}=nope` })).status).toBe(403);
    const rebound = await get('/', { host: `evil.example:${server.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain(server.token);
  });

  it('moves the token from the address into a strict HttpOnly cookie', async () => {
    const first = await get('/index.html');
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/index.html');
    expect(first.headers['set-cookie']?.[0]).toBe(
      `agentguard_view_${server.port}=${server.token}; HttpOnly; SameSite=Strict; Path=/`,
    );
  });

  it('serves the index with the site CSP, listing the run in progress', async () => {
    const index = await get('/', { cookie: cookie() });
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toMatch(/^default-src 'none';.*frame-ancestors 'none'$/);
    expect(index.headers['cache-control']).toBe('no-store');
    expect(index.body).toContain(`<a class="live-link" href="/live/${RUN}">${RUN}</a>`);
    expect(index.body).not.toContain('5ca1ab1e');
    expect(index.body).toContain('<footer>Served by agentguard view on this machine only.</footer>');
  });

  it('refuses traversal, symlinked run folders, unknown runs and writes', async () => {
    for (const p of [
      '/live/..%2F..%2Fetc/events',
      '/live/20261203-120000-5ca1ab1e',
      '/live/20261203-120000-5ca1ab1e/events',
      '/live/nothing-here',
      '/runs/nothing-here.html',
      '/batches/nothing-here.html',
    ]) {
      expect((await get(p, { cookie: cookie() })).status, p).toBe(404);
    }
    expect((await get('/', { cookie: cookie(), method: 'POST' })).status).toBe(405);
  });

  it('serves the live page with a CSP that admits its own script and its own origin only', async () => {
    const live = await get(`/live/${RUN}`, { cookie: cookie() });
    expect(live.status).toBe(200);
    expect(live.headers['content-security-policy']).toMatch(/connect-src 'self'; script-src 'sha256-[^']+';/);
    expect(live.body).toContain(`data-events="/live/${RUN}/events"`);
  });
});

describe('live event stream', () => {
  it('sends what was recorded, then each new line as it is appended, then done when the run has its report', async () => {
    const frames: string[] = [];
    let ended = false;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: `/live/${RUN}/events`,
          headers: { cookie: cookie() },
        },
        resolve,
      );
      req.on('error', reject);
      req.end();
    });
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    res.setEncoding('utf8');
    let buffer = '';
    res.on('data', (c: string) => {
      buffer += c;
      const parts = buffer.split('\n\n');
      buffer = parts.pop() ?? '';
      frames.push(...parts);
    });
    res.on('end', () => {
      ended = true;
    });
    const until = async (pred: () => boolean) => {
      for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 25));
      expect(pred()).toBe(true);
    };
    await until(() => frames.some((f) => f.includes('"event":"start"')));
    // The window opens: from now on the run's canary token is known, and never sent.
    writeFileSync(runPath(runDir, 'config'), JSON.stringify(makeConfig()));
    writeFileSync(
      runPath(runDir, 'canaries'),
      JSON.stringify({ home: '/root', canaries: [{ kind: 'ssh-key', path: '.ssh/id_rsa', token: TOKEN }] }),
    );
    const alert = {
      alert: {
        rule: 'secrets-canary-read',
        severity: 'critical',
        message: `curl sent ${TOKEN}`,
        syscall: 'openat',
        path: '/root/.ssh/id_rsa',
        process: { pid: 7, exe: '/usr/bin/curl' },
      },
      detected_ms: 12,
      latency_ms: 3,
    };
    mkdirSync(path.dirname(runPath(runDir, 'liveAlerts')), { recursive: true });
    appendFileSync(runPath(runDir, 'liveAlerts'), `${JSON.stringify(alert)}\nnot json\n`);
    await until(() => frames.some((f) => f.startsWith('event: alert')));
    const sent = frames.find((f) => f.startsWith('event: alert')) ?? '';
    expect(JSON.parse(sent.split('data: ')[1] ?? '')).toMatchObject({
      type: 'alert',
      rule: 'secrets-canary-read',
      where: '/root/.ssh/id_rsa',
      process: '/usr/bin/curl (pid 7)',
    });
    expect(sent).not.toContain(TOKEN);
    expect(sent).toContain('[REDACTED:canary-ssh-key');
    await until(() => frames.some((f) => f.includes('guard/alerts.jsonl is not a live alert')));
    writeFileSync(path.join(runDir, 'report.json'), '{}');
    await until(() => ended);
    expect(frames.at(-1)).toBe('event: done\ndata: {"type":"done","report":null}');
  });

  it('ends every open stream when the server stops', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'ag-view-stop-'));
    mkdirSync(path.join(other, 'runs', RUN), { recursive: true });
    const s = await ViewServer.start({ outputDir: other, port: 0, pollMs: 50, token: 't' });
    const ended = new Promise<void>((resolve) => {
      request(
        {
          host: '127.0.0.1',
          port: s.port,
          path: `/live/${RUN}/events?token=t`,
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
          res.on('error', () => resolve());
        },
      ).end();
    });
    await new Promise((r) => setTimeout(r, 100));
    await s.stop();
    await ended;
    await expect(
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: s.port, path: '/?token=t', agent: false }, resolve);
        req.on('error', reject);
        req.end();
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
    rmSync(other, { recursive: true, force: true });
  });
});
