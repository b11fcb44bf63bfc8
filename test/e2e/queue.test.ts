import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRedisServer, type RedisServer, startRedis } from '../../src/queue/local-redis.js';
import { BENCHMARKS, CLI, execCli, tempDir } from './exec-cli.js';
import { argvHolding, QUEUE_PASSWORD, queueSetup, startWorker as startQueueWorker } from './queue-helpers.js';

const hasRedis = hasRedisServer();
if (!hasRedis)
  console.warn(
    'queue tests skipped: redis-server is not installed (apt-get install -y redis-server; .ci/run does)',
  );

const work = tempDir('ag-queue-');
const q = queueSetup(work);
let redis: RedisServer | null = null;
const children: ChildProcess[] = [];
beforeAll(async () => {
  if (hasRedis) redis = await startRedis({ password: QUEUE_PASSWORD });
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis?.stop();
  rmSync(work, { recursive: true, force: true });
});

type Row = {
  index: number;
  agent: string;
  task: string;
  trial: number;
  result: string;
  run_id: string | null;
  run_dir: string | null;
  reason?: string;
};
const readJson = (f: string) => JSON.parse(readFileSync(f, 'utf8'));
const onlyBatch = (out: string) => {
  const dir = path.join(out, 'batches');
  const [b, ...rest] = readdirSync(dir);
  expect(rest).toEqual([]);
  return path.join(dir, b as string);
};
const verdicts = (rows: Row[]) =>
  Object.fromEntries(rows.map((r) => [`${r.agent}/${r.task}/${r.trial}`, r.result]));

/** 4 mock agents × the three core tasks: 12 attempts with PASS and FAIL of several kinds. */
const MATRIX = [
  'tasks:',
  ...['js-slugify', 'py-inventory', 'sh-logrotate'].map(
    (t) => `  - ${path.join(BENCHMARKS, t, 'config.yaml')}`,
  ),
  'agents:',
  '  - mock-solve',
  '  - mock-noop',
  '  - mock-tamper-tests',
  '  - mock-out-of-scope',
  'trials: 1',
  '',
].join('\n');

/**
 * A worker of this test: the round trips run `--tracer off` for speed, below the isolation floor,
 * which the worker's operator (this test) allows.
 */
const startWorker = (url: string, out: string, extra: string[] = []) => {
  const w = startQueueWorker(q, url, out, {
    cwd: work,
    name: path.basename(out),
    extra: ['--concurrency', '1', '--lock-ms', '2000', '--allow-below-floor', ...extra],
  });
  children.push(w.child);
  return w;
};
/** The coordinator's queue flags: the registered keys; the password comes from its environment. */
const queueArgs = (url: string) => ['--queue', url, '--worker-keys', q.keysDir];

describe.skipIf(!hasRedis)('matrix --queue with agentguard workers', () => {
  it('runs 12 attempts on two workers, one killed -9 mid-attempt: 12 rows exactly once, verdicts as a local run', async () => {
    const url = (redis as RedisServer).url;
    const m = path.join(work, 'matrix.yaml');
    writeFileSync(m, MATRIX);
    const local = await execCli(
      ['matrix', m, '--tracer', 'off', '--workers', '2', '--json', '--output-dir', path.join(work, 'local')],
      { cwd: work },
    );
    expect(local.stderr).not.toContain('ERROR');
    const localRows = JSON.parse(local.stdout).rows as Row[];
    expect(localRows).toHaveLength(12);

    const w1 = startWorker(url, path.join(work, 'w1'));
    const w2 = startWorker(url, path.join(work, 'w2'));
    await Promise.all([w1.waitFor(/waiting for jobs/), w2.waitFor(/waiting for jobs/)]);
    const out = path.join(work, 'coordinator');
    const coordinator = execCli(
      ['matrix', m, ...queueArgs(url), '--tracer', 'off', '--json', '--output-dir', out],
      { cwd: work, env: q.env },
    );
    // Killed as soon as it has started an attempt: the run is under way, its job is locked to w1.
    const started = await w1.waitFor(/job (\S+): attempt (\d+) of batch/);
    // Redis, both workers and the coordinator are up: not one of them shows the password in its argv.
    expect(argvHolding(QUEUE_PASSWORD)).toEqual([]);
    w1.child.kill('SIGKILL');
    const killedJob = started[1] as string;
    const killedIndex = Number(started[2]);
    const res = await coordinator;
    expect(res.stderr).not.toMatch(/rejected a result/);
    expect(res.code).toBe(1); // mock-noop and the cheaters FAIL, as locally
    const rows = JSON.parse(res.stdout).rows as Row[];
    expect(rows.map((r) => r.index)).toEqual([...Array(12).keys()]);
    expect(rows.filter((r) => r.result === 'ERROR').map((r) => r.reason)).toEqual([]);
    expect(verdicts(rows)).toEqual(verdicts(localRows));

    const batch = onlyBatch(out);
    const checkpoint = readFileSync(path.join(batch, 'checkpoint.jsonl'), 'utf8').trim().split('\n');
    expect(checkpoint).toHaveLength(12);
    expect(new Set(checkpoint.map((l) => JSON.parse(l).index)).size).toBe(12);
    const results = readFileSync(path.join(batch, 'queue-results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results).toHaveLength(12);
    // The killed worker's attempt was finished by the other one, never by the dead one.
    expect(w1.log()).not.toMatch(new RegExp(`job ${killedJob.replaceAll('.', '\\.')}: (PASS|FAIL)`));
    expect(results.find((r) => r.index === killedIndex).worker.pid).toBe(w2.child.pid);
    expect(w2.log()).toContain(`job ${killedJob}: attempt ${killedIndex}`);
    // The evidence came home, into this batch's own folder: every row's run folder is there, with
    // its report and seal, and nothing landed among the output folder's local runs.
    for (const r of rows) {
      expect(r.run_dir).toBe(path.join(batch, 'runs', r.run_id as string));
      expect(readJson(path.join(batch, 'runs', r.run_id as string, 'report.json')).result).toBe(r.result);
    }
    expect(existsSync(path.join(out, 'runs')) ? readdirSync(path.join(out, 'runs')) : []).toEqual([]);
    expect(readJson(path.join(batch, 'manifest.json')).runs).toHaveLength(12);
    expect(res.stderr).not.toMatch(/internal error/);
    // The seal made on the worker still holds here: the evidence travelled unchanged.
    const verify = await execCli(
      ['trace', 'verify', path.join(batch, 'runs', rows[killedIndex]?.run_id as string)],
      {
        cwd: work,
      },
    );
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^intact/);
    // And the batch's seal, which names those runs by their own seals from under its folder.
    const batchVerify = await execCli(['trace', 'verify', batch], { cwd: work });
    expect(batchVerify.stdout).toMatch(/^intact: batch files \(\d+\) and 12 runs match/);
    // A worker runs until stopped: SIGTERM ends it cleanly, with the signal's exit code.
    const exited = new Promise<number | null>((resolve) => w2.child.once('exit', (code) => resolve(code)));
    w2.child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(w2.log()).not.toMatch(/internal error/);
  }, 240_000);

  it('a resumed coordinator re-attaches: jobs already finished are collected, not run again', async () => {
    const out = path.join(work, 'coordinator');
    const batch = onlyBatch(out);
    const before = readJson(path.join(batch, 'summary.json')).rows as Row[];
    // Forget two rows, as a coordinator killed before checkpointing them would have; no worker runs now.
    const cp = path.join(batch, 'checkpoint.jsonl');
    const lines = readFileSync(cp, 'utf8').trim().split('\n');
    writeFileSync(cp, `${lines.filter((l) => ![3, 7].includes(JSON.parse(l).index)).join('\n')}\n`);
    const res = await execCli(
      ['resume', batch, ...queueArgs((redis as RedisServer).url), '--json', '--output-dir', out],
      { cwd: work, env: q.env },
    );
    expect(res.stderr).not.toMatch(/rejected/);
    const rows = JSON.parse(res.stdout).rows as Row[];
    expect(rows).toHaveLength(12);
    // The same runs: the stable job ids found the finished jobs, nothing was enqueued or run again.
    expect(rows.map((r) => r.run_id)).toEqual(before.map((r) => r.run_id));
  }, 60_000);
  it('a coordinator killed -9 mid-batch and resumed re-attaches: every attempt runs once, none is lost', async () => {
    const url = (redis as RedisServer).url;
    const m = path.join(work, 'matrix-6.yaml');
    writeFileSync(m, MATRIX.replace('  - mock-tamper-tests\n  - mock-out-of-scope\n', ''));
    const w = startWorker(url, path.join(work, 'w4'));
    await w.waitFor(/waiting for jobs/);
    const out = path.join(work, 'coordinator-killed');
    const first = spawn(
      process.execPath,
      [CLI, 'matrix', m, ...queueArgs(url), '--tracer', 'off', '--output-dir', out],
      {
        cwd: work,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1', ...q.env },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    children.push(first);
    let err = '';
    await new Promise<void>((resolve) =>
      first.stderr?.on('data', (c) => {
        err += c;
        if (/\[1\/6\]/.test(err)) resolve();
      }),
    );
    first.kill('SIGKILL');
    const batch = onlyBatch(out);
    const res = await execCli(['resume', batch, ...queueArgs(url), '--json', '--output-dir', out], {
      cwd: work,
      env: q.env,
    });
    w.child.kill('SIGTERM');
    const rows = JSON.parse(res.stdout).rows as Row[];
    expect(rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(rows.filter((r) => r.result === 'ERROR').map((r) => r.reason)).toEqual([]);
    const lines = readFileSync(path.join(batch, 'checkpoint.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(6);
    // Each job ran once on the worker: the resumed coordinator found them, it did not enqueue again.
    const started = [...w.log().matchAll(/job (\S+): attempt/g)].map((x) => x[1]);
    expect(started).toHaveLength(6);
    expect(new Set(started).size).toBe(6);
    expect(new Set(rows.map((r) => r.run_id)).size).toBe(6);
  }, 180_000);
  it("evidence over the worker's limit stays on the worker: the row is an ERROR saying the verdict is not verified and where the run is", async () => {
    const url = (redis as RedisServer).url;
    const m = path.join(work, 'matrix-1.yaml');
    writeFileSync(
      m,
      `tasks: [${path.join(BENCHMARKS, 'js-slugify', 'config.yaml')}]\nagents: [mock-solve]\n`,
    );
    const w = startWorker(url, path.join(work, 'w5'), ['--max-evidence-mb', '0']);
    await w.waitFor(/waiting for jobs/);
    const out = path.join(work, 'coordinator-big');
    const res = await execCli(
      ['matrix', m, ...queueArgs(url), '--tracer', 'off', '--json', '--output-dir', out],
      { cwd: work, env: q.env },
    );
    w.child.kill('SIGTERM');
    const [row] = JSON.parse(res.stdout).rows as (Row & { run_dir: string | null })[];
    // The worker's PASS is not taken on its word: no seal can be checked against files not here.
    expect(row?.result).toBe('ERROR');
    expect(row?.run_dir).toBeNull();
    expect(row?.reason).toMatch(
      /run \S+ \(PASS on worker \S+\) is not verified: its evidence, \d+ bytes compressed, stayed on the worker at \S+, so its seal cannot be checked here\. Fix: .*--max-evidence-mb/,
    );
    const [noted] = readFileSync(path.join(onlyBatch(out), 'queue-results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(noted.evidence).toBeNull();
    expect(noted.evidence_too_large).toBeGreaterThan(0);
    expect(readJson(path.join(noted.remote_run_dir, 'report.json')).result).toBe('PASS');
  }, 60_000);
});

describe('bad --queue input', () => {
  it('a password in the URL is refused (argv is public), an unreachable Redis is exit 2 within 5 s; the password is never printed', async () => {
    const m = path.join(work, 'matrix-bad.yaml');
    writeFileSync(m, MATRIX);
    for (const args of [
      ['matrix', m, '--queue', 'redis://:hunter2@127.0.0.1:1/0', '--worker-keys', q.keysDir],
      ['worker', '--queue', 'redis://:hunter2@127.0.0.1:1/0'],
      ['worker', '--queue', 'rediss://user:hunter2@10.255.255.1:6379'],
    ]) {
      const res = await execCli(args, { cwd: work });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/carries a password.*--queue-password-file/);
      expect(res.stderr + res.stdout).not.toContain('hunter2');
    }
    q.key('bad-input');
    for (const args of [
      ['matrix', m, '--queue', 'redis://127.0.0.1:1/0', '--worker-keys', q.keysDir],
      ['worker', '--queue', 'redis://127.0.0.1:1/0'],
      ['worker', '--queue', 'rediss://user@10.255.255.1:6379'],
    ]) {
      const t0 = Date.now();
      const res = await execCli(args, { cwd: work, env: { AGENTGUARD_QUEUE_PASSWORD: 'hunter2' } });
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/cannot reach Redis/);
      expect(res.stderr + res.stdout).not.toContain('hunter2');
    }
    const bad = await execCli(['worker', '--queue', 'http://h:1'], { cwd: work });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/redis:\/\/ or rediss:\/\//);
    const noKeys = await execCli(['matrix', m, '--queue', 'redis://127.0.0.1:1/0'], { cwd: work });
    expect(noKeys.code).toBe(2);
    expect(noKeys.stderr).toMatch(/--queue needs --worker-keys/);
  }, 30_000);
});
