import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { planBatch, runBatch } from '../batch/run-batch.js';
import type { AgentSpec } from '../batch/types.js';
import { loadConfigOrThrow } from '../config/load.js';
import type { RunContext } from '../pipeline/context.js';
import { connectRedis } from '../queue/connect.js';
import { queueCoordinator } from '../queue/coordinator.js';
import { hasRedisServer, startRedis } from '../queue/local-redis.js';
import { parseRedisUrl } from '../queue/redis-url.js';

const ATTEMPTS = Number(process.env.AG_QUEUE_BENCH_ATTEMPTS ?? 40);
const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');

/**
 * The queue's own cost per attempt: N attempts of a trivial agent (`true`, tracer off, no sandbox)
 * as one batch run here at one worker, against the same batch through a private redis-server with
 * one and then two `agentguard worker` processes (concurrency 1 each, started and ready before the
 * clock starts). The difference per attempt at one worker is what the queue adds: enqueue, a
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
    const plan = (c: RunContext, workers: number) =>
      planBatch(c, {
        kind: 'benchmark',
        sourceFile: null,
        agents: [agent],
        configs: [cfg],
        trials: ATTEMPTS,
        options: { workers, fail_fast: false },
      });

    const local = ctx('local');
    const t = performance.now();
    await runBatch(local, plan(local, 1));
    const localMs = (performance.now() - t) / ATTEMPTS;

    const target = parseRedisUrl('--queue', server.url);
    const redis = await connectRedis(target);
    const through = async (n: number): Promise<number> => {
      while (workers.length < n)
        workers.push(await startWorker(server.url, path.join(dir, `w${workers.length}`)));
      const c = ctx(`queue-${n}`);
      const p = plan(c, ATTEMPTS);
      const coordinator = await queueCoordinator(c, p, redis, target, (line) => console.error(line));
      const t0 = performance.now();
      const summary = await runBatch(c, p, () => {}, { worker: coordinator.worker });
      const ms = (performance.now() - t0) / ATTEMPTS;
      await coordinator.close();
      if (summary.totals.pass !== ATTEMPTS) throw new Error(`queue bench: ${JSON.stringify(summary.totals)}`);
      return ms;
    };
    const one = await through(1);
    const two = await through(2);
    redis.disconnect();
    console.log(
      JSON.stringify({
        attempts: ATTEMPTS,
        local_ms_per_attempt: round(localMs),
        queue_1_worker_ms_per_attempt: round(one),
        queue_2_workers_ms_per_attempt: round(two),
        queue_overhead_ms_per_attempt: round(one - localMs),
      }),
    );
  } finally {
    for (const w of workers) w.kill('SIGKILL');
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const round = (x: number) => Math.round(x * 10) / 10;

function startWorker(url: string, out: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'worker', '--queue', url, '--output-dir', out], {
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
