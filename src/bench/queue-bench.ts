import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { planBatch, runBatch } from '../batch/run-batch.js';
import { loadConfigOrThrow } from '../config/load.js';
import type { RunContext } from '../pipeline/context.js';
import { connectRedis } from '../queue/connect.js';
import { queueCoordinator } from '../queue/coordinator.js';
import { hasRedisServer, startRedis } from '../queue/local-redis.js';
import { parseRedisUrl } from '../queue/redis-url.js';
import { loadOrCreateWorkerKey, loadRegisteredKeys } from '../queue/worker-key.js';
import type { AgentSpec } from '../reports/batch-types.js';

const ROUNDS = Number(process.env.AG_QUEUE_BENCH_ROUNDS ?? 5);
const PER_ROUND = 8;
const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');

/**
 * The queue's own cost per attempt: batches of a trivial agent (`true`, tracer off, no sandbox)
 * run here one at a time, against the same batches through a private redis-server with one and
 * then two `agentguard worker` processes (concurrency 1 each, started and ready before the clock
 * starts). The difference per attempt at one worker is what the queue adds: enqueue, a
 * worker's pickup, the result's return and the evidence bundle's trip through Redis and its checks.
 */
async function main(): Promise<void> {
  if (!hasRedisServer()) {
    console.log(
      JSON.stringify({ skipped: 'redis-server is not installed (apt-get install -y redis-server)' }),
    );
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-queue-bench-'));
  const server = await startRedis();
  const workers: ChildProcess[] = [];
  try {
    mkdirSync(path.join(dir, 'task/repo'), { recursive: true });
    writeFileSync(path.join(dir, 'task/repo/README.md'), 'x\n');
    writeFileSync(
      path.join(dir, 'task/config.yaml'),
      "name: trivial\ntask: {prompt: nothing}\nrepo: repo\ntest_command: ['true']\nagent_command: ['true']\nsandbox: local\ntracer: off\n",
    );
    const cfg = loadConfigOrThrow(path.join(dir, 'task/config.yaml'));
    const agent: AgentSpec = { name: 'trivial', kind: 'builtin', adapter: 'agent-command' };
    const ctx = (out: string): RunContext => ({
      outputDir: path.join(dir, out),
      env: process.env,
      now: () => new Date(),
      log: () => {},
      history: true,
    });
    const plan = (c: RunContext, n: number, workers: number) =>
      planBatch(c, {
        kind: 'benchmark',
        sourceFile: null,
        agents: [agent],
        configs: [cfg],
        trials: n,
        options: { workers, fail_fast: false },
      });

    // Each worker its own key, registered here before it starts.
    mkdirSync(path.join(dir, 'keys'));
    for (const w of ['w0', 'w1'])
      writeFileSync(
        path.join(dir, 'keys', `${w}.pub`),
        loadOrCreateWorkerKey(path.join(dir, `${w}.pem`)).publicPem,
      );
    const keys = loadRegisteredKeys(path.join(dir, 'keys'));
    const target = parseRedisUrl('--queue', server.url);
    const redis = await connectRedis(target);
    let batches = 0;
    /** ms per attempt of one batch of `n` attempts, here or through the queue. */
    const batch = async (n: number, queued: boolean): Promise<number> => {
      const c = ctx(`b${batches++}`);
      const p = plan(c, n, queued ? n : 1);
      const coordinator = queued
        ? await queueCoordinator(c, p, redis, target, keys, (l) => console.error(l))
        : null;
      const t0 = performance.now();
      const summary = await runBatch(c, p, () => {}, coordinator ? { worker: coordinator.worker } : {});
      const ms = (performance.now() - t0) / n;
      await coordinator?.close();
      if (summary.totals.pass !== n) throw new Error(`queue bench: ${JSON.stringify(summary.totals)}`);
      return ms;
    };
    // Local and one-worker batches alternate, round by round, and the added time is the median of
    // the rounds' differences: on a shared machine the load drifts over a minute, and pairing
    // cancels most of it.
    workers.push(await startWorker(server.url, path.join(dir, 'w0'), path.join(dir, 'w0.pem')));
    const local: number[] = [];
    const one: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      local.push(await batch(PER_ROUND, false));
      one.push(await batch(PER_ROUND, true));
    }
    workers.push(await startWorker(server.url, path.join(dir, 'w1'), path.join(dir, 'w1.pem')));
    const two: number[] = [];
    for (let r = 0; r < ROUNDS; r++) two.push(await batch(PER_ROUND, true));
    const added = local.map((l, k) => (one[k] as number) - l);
    redis.disconnect();
    console.log(
      JSON.stringify({
        attempts_per_mode: ROUNDS * PER_ROUND,
        local_ms_per_attempt: round(median(local)),
        queue_1_worker_ms_per_attempt: round(median(one)),
        queue_2_workers_ms_per_attempt: round(median(two)),
        queue_overhead_ms_per_attempt: round(median(added)),
        queue_overhead_ms_per_round: added.map(round),
      }),
    );
  } finally {
    for (const w of workers) w.kill('SIGKILL');
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const round = (x: number) => Math.round(x * 10) / 10;
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/** A worker with its own key; the bench's trivial task runs unsandboxed, so its operator allows that. */
function startWorker(url: string, out: string, key: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const args = ['worker', '--queue', url, '--output-dir', out, '--key', key, '--allow-below-floor'];
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr?.on('data', (c) => {
      log += c;
      if (log.includes('waiting for jobs')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${log}`)));
  });
}

await main();
