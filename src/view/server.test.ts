import { execFileSync } from 'node:child_process';
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
const outside = mkdtempSync(path.join(tmpdir(), 'ag-view-outside-'));
const SECRET = 'OUTSIDE-THE-RUN-FOLDER';
const outsideAlert = { alert: { rule: SECRET, severity: 'critical', message: SECRET } };
const outsideEvent = { ts: 1, phase: 'agent', event: SECRET };
const fifoRun = path.join(out, 'runs', '20261203-130000-f1f0f1f0');
const linkRun = path.join(out, 'runs', '20261203-140000-11fe11fe');

type Answer = { status: number; headers: IncomingMessage['headers']; body: string };

/** A request for `page` of the viewer, under `/<token>` unless `token: false` (then `page` is the whole path). */
function get(
  page: string,
  opts: { token?: boolean; cookie?: string; host?: string; method?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: opts.token === false ? page : `/${server.token}${page}`,
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

beforeAll(async () => {
  mkdirSync(path.join(runDir, 'evidence'), { recursive: true });
  writeFileSync(runPath(runDir, 'timeline'), '{"ts":0,"phase":"prepare","event":"start"}\n');
  // A run folder that is a symlink to elsewhere is never served.
  symlinkSync(tmpdir(), path.join(out, 'runs', '20261203-120000-5ca1ab1e'));
  // Hostile run folders: a FIFO where the timeline should be and guard/ a link out of the folder;
  // evidence/ itself a link out. The files outside hold what must never be sent.
  mkdirSync(path.join(outside, 'guard'), { recursive: true });
  writeFileSync(path.join(outside, 'guard', 'alerts.jsonl'), `${JSON.stringify(outsideAlert)}\n`);
  writeFileSync(path.join(outside, 'timeline.jsonl'), `${JSON.stringify(outsideEvent)}\n`);
  mkdirSync(path.join(fifoRun, 'evidence'), { recursive: true });
  execFileSync('mkfifo', [runPath(fifoRun, 'timeline')]);
  symlinkSync(path.join(outside, 'guard'), path.join(fifoRun, 'guard'));
  mkdirSync(linkRun);
  symlinkSync(outside, path.join(linkRun, 'evidence'));
  server = await ViewServer.start({ outputDir: out, port: 0, pollMs: 50 });
});
afterAll(async () => {
  await server.stop();
  rmSync(out, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('ViewServer access', () => {
  it('answers 403 without the token, with a wrong one, or addressed to another host', async () => {
    expect((await get('/', { token: false })).status).toBe(403);
    expect((await get('/nope/', { token: false })).status).toBe(403);
    expect((await get(`/${server.token.slice(1)}/`, { token: false })).status).toBe(403);
    expect((await get(`/runs/${server.token}/`, { token: false })).status).toBe(403);
    const rebound = await get('/', { host: `evil.example:${server.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain(server.token);
  });

  it('takes the token from the address only: it never sets a cookie, and a cookie carrying it opens nothing', async () => {
    // Cookies ignore ports: one for 127.0.0.1 would reach every other server on this machine.
    for (const p of ['/', '/index.html', `/live/${RUN}`])
      expect((await get(p)).headers['set-cookie'], p).toBeUndefined();
    const bare = await get('', {});
    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe(`/${server.token}/`);
    for (const cookie of [`token=${server.token}`, `agentguard_view_${server.port}=${server.token}`])
      expect((await get('/', { token: false, cookie })).status, cookie).toBe(403);
    expect((await get(`/?token=${server.token}`, { token: false })).status).toBe(403);
  });

  it('serves the index with the site CSP, listing the run in progress', async () => {
    const index = await get('/');
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toMatch(/^default-src 'none';.*frame-ancestors 'none'$/);
    expect(index.headers['cache-control']).toBe('no-store');
    expect(index.body).toContain(`<a class="live-link" href="live/${RUN}">${RUN}</a>`);
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
      expect((await get(p)).status, p).toBe(404);
    }
    expect((await get('/', { method: 'POST' })).status).toBe(405);
  });

  it('serves the live page with a CSP that admits its own script and its own origin only', async () => {
    const live = await get(`/live/${RUN}`);
    expect(live.status).toBe(200);
    expect(live.headers['content-security-policy']).toMatch(/connect-src 'self'; script-src 'sha256-[^']+';/);
    expect(live.body).toContain(`data-events="${RUN}/events"`);
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
          path: `/${server.token}/live/${RUN}/events`,
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
          path: `/t/live/${RUN}/events`,
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
        const req = request({ host: '127.0.0.1', port: s.port, path: '/t/', agent: false }, resolve);
        req.on('error', reject);
        req.end();
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
    rmSync(other, { recursive: true, force: true });
  });
});

/** The frames of `runId`'s event stream until `enough` holds (or 5 s pass), then the stream is dropped. */
async function framesOf(runId: string, enough: (frames: string[]) => boolean): Promise<string[]> {
  const frames: string[] = [];
  const req = request({
    host: '127.0.0.1',
    port: server.port,
    path: `/${server.token}/live/${runId}/events`,
  });
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
  res.setEncoding('utf8');
  let buffer = '';
  res.on('data', (c: string) => {
    buffer += c;
    const parts = buffer.split('\n\n');
    buffer = parts.pop() ?? '';
    frames.push(...parts);
  });
  for (let i = 0; i < 200 && !enough(frames); i++) await new Promise((r) => setTimeout(r, 25));
  req.destroy();
  return frames;
}

describe('a hostile run folder', () => {
  it('a FIFO and a link out of the folder are refused with a note, and the viewer stays responsive', async () => {
    const notes = (f: string[]) => f.filter((x) => x.startsWith('event: note'));
    const started = Date.now();
    const frames = await framesOf(path.basename(fifoRun), (f) => notes(f).length >= 2);
    expect(Date.now() - started).toBeLessThan(5000);
    const text = notes(frames).join('\n');
    expect(text).toContain('evidence/timeline.jsonl is a FIFO (named pipe), not a regular file; not shown');
    expect(text).toMatch(
      /guard\/alerts\.jsonl is reached through \S+\/guard, a symbolic link, which agentguard does not follow here; not shown/,
    );
    expect(frames.join('\n')).not.toContain(SECRET);
    // Each refusal is said once, not on every poll.
    expect(notes(frames)).toHaveLength(2);
    // The server answers other pages while that stream is open, and the index lists the run.
    const index = await get('/');
    expect(index.status).toBe(200);
    expect(index.body).toContain(path.basename(fifoRun));
  });

  it('a run folder whose evidence/ links out sends nothing from there', async () => {
    const frames = await framesOf(path.basename(linkRun), (f) => f.some((x) => x.startsWith('event: note')));
    expect(frames.join('\n')).toMatch(
      /evidence\/timeline\.jsonl is reached through \S+\/evidence, a symbolic link/,
    );
    expect(frames.join('\n')).not.toContain(SECRET);
  });
});
