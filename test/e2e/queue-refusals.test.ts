import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigOrThrow } from '../../src/config/load.js';
import { type AttemptJob, bundleKey, QUEUE_NAME, versionStamp } from '../../src/queue/job.js';
import { hasRedisServer, type RedisServer, startRedis } from '../../src/queue/local-redis.js';
import { taskBundle } from '../../src/queue/task-bundle.js';
import { BENCHMARKS, CLI, tempDir } from './exec-cli.js';

const hasRedis = hasRedisServer();
if (!hasRedis)
  console.warn(
    'queue tests skipped: redis-server is not installed (apt-get install -y redis-server; .ci/run does)',
  );

/*
 * A real worker process given jobs it must refuse: one from another agentguard version, one whose
 * task bundle's bytes do not match the digest in the job. Each fails with its reason, and nothing runs.
 */

const work = tempDir('ag-queue-refuse-');
let server: RedisServer | null = null;
let redis: Redis | null = null;
let queue: Queue | null = null;
let events: QueueEvents | null = null;
let worker: ReturnType<typeof spawn> | null = null;
let log = '';

beforeAll(async () => {
  if (!hasRedis) return;
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  queue = new Queue(QUEUE_NAME, { connection: redis });
  events = new QueueEvents(QUEUE_NAME, { connection: redis.duplicate() });
  await events.waitUntilReady();
  worker = spawn(
    process.execPath,
    [CLI, 'worker', '--queue', server.url, '--output-dir', path.join(work, 'w')],
    {
      cwd: work,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  worker.stderr?.on('data', (c) => {
    log += c;
  });
  while (!log.includes('waiting for jobs')) await new Promise((r) => setTimeout(r, 50));
}, 30_000);

afterAll(async () => {
  worker?.kill('SIGKILL');
  await events?.close();
  await queue?.close();
  redis?.disconnect();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

function job(batch: string, over: Partial<AttemptJob>): AttemptJob {
  const cfg = path.join(BENCHMARKS, 'js-slugify', 'config.yaml');
  return {
    schema: 1,
    agentguard: versionStamp(),
    batch_id: batch,
    attempt: {
      index: 0,
      agent: { name: 'mock-solve', kind: 'builtin', adapter: 'mock-solve' },
      task: 'js-slugify',
      config_path: cfg,
      trial: 1,
    },
    task: { sha256: '0'.repeat(64), bytes: 0, config: 'js-slugify/config.yaml' },
    overrides: { tracer: 'off' },
    ...over,
  };
}

async function failure(batch: string, data: AttemptJob): Promise<string> {
  const j = await (queue as Queue).add('attempt', data, { jobId: `${batch}.0` });
  try {
    await j.waitUntilFinished(events as QueueEvents, 30_000);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the worker ran a job it should have refused');
}

describe.skipIf(!hasRedis)('a worker refuses', () => {
  it('a job from another agentguard version, naming both versions', async () => {
    const mine = versionStamp();
    const reason = await failure(
      'other-version',
      job('other-version', {
        agentguard: { version: '99.0.0', collector_protocol: mine.collector_protocol },
      }),
    );
    expect(reason).toContain('agentguard 99.0.0');
    expect(reason).toContain(`refused by a worker of agentguard ${mine.version}`);
  }, 40_000);

  it('a task bundle whose bytes do not match the job digest, before running anything', async () => {
    const real = taskBundle(loadConfigOrThrow(path.join(BENCHMARKS, 'js-slugify', 'config.yaml')));
    const other = taskBundle(loadConfigOrThrow(path.join(BENCHMARKS, 'sh-logrotate', 'config.yaml')));
    // The key of the real digest holds other bytes: a swapped or corrupted upload.
    await (redis as Redis).set(bundleKey(real.sha256), other.bytes);
    const reason = await failure(
      'bad-digest',
      job('bad-digest', { task: { sha256: real.sha256, bytes: real.bytes.length, config: real.config } }),
    );
    expect(reason).toMatch(/bundle digest sha256:[0-9a-f]{64} does not match the job's sha256:/);
    expect(existsSync(path.join(work, 'w', 'runs'))).toBe(false);
    expect(existsSync(path.join(work, 'w', 'queue', 'tasks', real.sha256))).toBe(false);
    // The worker says so in its own log too (its 'failed' event may come just after the queue's).
    for (let i = 0; i < 40 && !/job bad-digest\.0: refused or failed/.test(log); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(log).toMatch(/job bad-digest\.0: refused or failed: .*does not match/);
  }, 40_000);
});
