import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBwrapStrace, tempDir } from './exec-cli.js';

/*
 * An agent in the sandbox asks the proxy for the host's own services through names the allow list
 * lets through: a name that resolves to loopback, and a redirect from an allowed host to loopback and
 * to the cloud metadata address. Real servers listen on the host's 127.0.0.1; none may be reached,
 * and each refusal is recorded and alerted.
 */

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const runnable = process.getuid?.() === 0 && has('bwrap') && has('strace') && has('curl');
if (!runnable) console.warn('internal egress e2e skipped: it needs root, bwrap, strace and curl');

const work = tempDir();
let inside: Server;
let outside: Server;
let insideHits = 0;

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

let insidePort = 0;
let outsidePort = 0;
beforeAll(async () => {
  inside = createServer((_req, res) => {
    insideHits += 1;
    res.end('the host database');
  });
  insidePort = await listen(inside);
  outside = createServer((req, res) => {
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/';
    res.writeHead(302, { location: to });
    res.end();
  });
  outsidePort = await listen(outside);
});

afterAll(() => {
  inside?.close();
  outside?.close();
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!runnable)('names and redirects that lead to internal addresses', () => {
  it('are refused by the proxy at connect time, recorded and alerted, under bwrap', {
    timeout: 120_000,
  }, async () => {
    const dir = path.join(work, 'task');
    mkdirSync(path.join(dir, 'repo'), { recursive: true });
    writeFileSync(path.join(dir, 'repo/README.md'), 'probe\n');
    const fetch = (url: string) =>
      `curl -s -o /dev/null -w '%{http_code}\\n' --noproxy '' -x "$HTTP_PROXY" -L '${url}' >> codes.txt`;
    const enc = encodeURIComponent;
    writeFileSync(
      path.join(dir, 'agent.sh'),
      [
        fetch(`http://localhost:${insidePort}/dump`),
        fetch(`http://public.example/go?to=${enc(`http://localhost:${insidePort}/dump`)}`),
        fetch(`http://public.example/go?to=${enc('http://169.254.169.254/latest/meta-data/')}`),
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'config.yaml'),
      [
        'name: internal-egress',
        'task: {prompt: probe}',
        'repo: repo',
        "test_command: [sh, -c, 'test -f codes.txt']",
        `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
        'network:',
        '  mode: allowlist',
        "  allow: ['*']",
        `  hosts: {public.example: '127.0.0.1:${outsidePort}'}`,
      ].join('\n'),
    );
    const { report } = await runBwrapStrace(dir);
    const records: { host: string; decision: string; reason: string }[] = readFileSync(
      path.join(report.run_dir, 'evidence/network.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((r) => r.protocol !== 'dns');
    expect(records.map((r) => `${r.host} ${r.decision}`)).toEqual([
      'localhost denied',
      'public.example allowed',
      'localhost denied',
      'public.example allowed',
      '169.254.169.254 denied',
    ]);
    for (const r of records.filter((x) => x.decision === 'denied'))
      expect(r.reason).toMatch(/internal address/);
    expect(insideHits).toBe(0);
    const alerted = report.alerts
      .filter((a: { rule: string }) => a.rule === 'net-proxy-not-allowed')
      .map((a: { host?: string }) => a.host);
    expect(alerted).toEqual(expect.arrayContaining(['localhost', '169.254.169.254']));
    expect(report.result).toBe('FAIL');
  });
});
