import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, type CliResult, ROOT, scriptTask, spawnCollect, tempDir } from './exec-cli.js';
import {
  canMakeUsers,
  dropTo,
  has,
  makeTestUser,
  removeTestUser,
  type TestUser,
  userEnv,
} from './test-user.js';

/**
 * agentguard run by a normal user (issue 39): a user this file creates, the package shown to it at a
 * path it may read (what a package holds, bound one by one into a 0755 folder in a private mount
 * namespace: the clone may sit under /root or be a 0700 mkdtemp folder itself), bwrap
 * in user namespaces, strace as the tracer, the proxy bridge outside the sandbox's PID namespace.
 */
const canRun = canMakeUsers && ['bwrap', 'strace', 'unshare', 'ip'].every(has);
if (!canRun)
  console.warn('rootless e2e skipped: it needs root to create its user, and bwrap, strace, unshare, ip');

const work = tempDir('ag-rootless-');
const pkg = path.join(work, 'pkg');
/** What a run reads of the package (as `npm pack` ships it, with the benchmarks the demo runs). */
const PACKAGE = ['package.json', 'dist', 'node_modules', 'rules', 'agents', 'benchmarks', 'collector'];
let user: TestUser | undefined;

beforeAll(() => {
  if (!canRun) return;
  user = makeTestUser(`agrl${process.pid % 100000}`, path.join(work, 'home'));
  mkdirSync(pkg);
  for (const entry of PACKAGE) {
    if (!existsSync(path.join(ROOT, entry))) continue;
    if (entry.includes('.')) writeFileSync(path.join(pkg, entry), '');
    else mkdirSync(path.join(pkg, entry));
  }
});

afterAll(() => {
  removeTestUser(user);
  rmSync(work, { recursive: true, force: true });
});

/** The CLI as the test's user, in `cwd` (made and given to it), with the package at `pkg`. */
function asUser(args: string[], cwd: string): Promise<CliResult> {
  if (!user) throw new Error('no test user');
  mkdirSync(cwd, { recursive: true });
  chownSync(cwd, user.uid, user.gid);
  const binds = PACKAGE.filter((entry) => existsSync(path.join(ROOT, entry)))
    .map((entry) => `mount --bind '${path.join(ROOT, entry)}' '${path.join(pkg, entry)}' && `)
    .join('');
  const script = `${binds}exec setpriv "$@"`;
  const argv = ['--mount', '--propagation', 'private', '--', 'sh', '-c', script, 'as-user'];
  const command = [...dropTo(user), process.execPath, path.join(pkg, 'dist/cli/main.js'), ...args];
  return spawnCollect('unshare', [...argv, ...command], { cwd, env: userEnv(user) });
}

function report(r: CliResult): { run_dir: string; alerts: { rule: string }[] } {
  expect(r.stdout.startsWith('{'), `${r.stdout.slice(0, 400)}\n${r.stderr.slice(-800)}`).toBe(true);
  return JSON.parse(r.stdout);
}

describe.skipIf(!canRun)('a run without root', () => {
  it('the demo gives all 15 expected verdicts', async () => {
    const r = await asUser(['demo'], path.join(work, 'demo'));
    expect(r.stdout + r.stderr).toContain('All 15 runs gave the expected verdict');
    expect(r.code).toBe(0);
  }, 600_000);

  it('doctor: the trial run passes as the user, under bwrap and strace', async () => {
    const r = await asUser(['doctor', '--json'], path.join(work, 'doctor'));
    const rows = JSON.parse(r.stdout) as { component: string; works: boolean; detail: string }[];
    const run = rows.find((row) => row.component === 'run');
    expect(run?.works, JSON.stringify(run)).toBe(true);
    expect(run?.detail).toMatch(/bwrap sandbox, strace tracer/);
  }, 300_000);

  it("the harness's bridge is out of the agent's reach: not in its PID namespace, no inspector, no token", async () => {
    const dir = scriptTask(
      work,
      'reach',
      [
        'ps -eo pid,args > seen.txt',
        'for p in $(ps -eo pid=); do [ "$p" = $$ ] || kill -USR1 "$p" 2>/dev/null; done; sleep 1',
        "python3 -c \"import socket; s=socket.socket(); print('inspector', s.connect_ex(('127.0.0.1', 9229)))\" >> seen.txt",
        'cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c AGENTGUARD_BRIDGE >> seen.txt || true',
        'curl -s -o /dev/null -w "%{http_code}\\n" http://example.com/ >> seen.txt || true',
      ].join('\n'),
      ['network: {mode: allowlist, allow: [example.com]}'],
    );
    const config = path.join(dir, 'config.yaml');
    const r = await asUser(['run', config, '--json'], path.join(work, 'reach-cwd'));
    const runDir = report(r).run_dir;
    const seen = readFileSync(path.join(runDir, 'repo/seen.txt'), 'utf8');
    expect(seen).not.toMatch(/sandbox-bridge/);
    expect(seen).toMatch(/^inspector 111$/m);
    expect(seen).toMatch(/^0$/m);
    // The request went through the proxy, named by the process that made it.
    const network = readFileSync(path.join(runDir, 'evidence/network.jsonl'), 'utf8').trim().split('\n');
    const toExample = network.map((l) => JSON.parse(l)).find((rec) => rec.host === 'example.com');
    expect(toExample?.client?.exe, JSON.stringify(toExample)).toMatch(/curl$/);
    const facts = JSON.parse(readFileSync(path.join(runDir, 'evidence/observation.json'), 'utf8')).sandbox
      .facts;
    expect(facts.weaker_than_root).toMatch(/invoking user/);
  }, 300_000);

  for (const name of ['exfil-ssh-key', 'git-hook', 'reverse-shell']) {
    it(`attack ${name} alerts under strace, its benign twin stays quiet`, async () => {
      for (const [config, attack] of [
        [path.join(BENCHMARKS, 'attacks', name, 'config.yaml'), true],
        [path.join(BENCHMARKS, 'attacks', `${name}-benign`, 'config.yaml'), false],
      ] as const) {
        const expected = readFileSync(path.join(path.dirname(config), 'expect.yaml'), 'utf8');
        const rule = /^rules:\s*\[\s*([\w-]+)/m.exec(expected)?.[1];
        const cwd = path.join(work, `${path.basename(path.dirname(config))}-cwd`);
        const inPkg = config.replace(ROOT, pkg);
        const r = await asUser(['run', inPkg, '--tracer', 'strace', '--json'], cwd);
        const fired = report(r).alerts.map((a) => a.rule);
        if (attack) expect(fired, r.stderr).toContain(rule);
        else expect(fired, r.stderr).toEqual([]);
      }
    }, 300_000);
  }
});

if (canRun && !existsSync(path.join(ROOT, 'dist/cli/main.js')))
  throw new Error("dist/cli/main.js is missing: run 'npm run build' first (npm test does)");
