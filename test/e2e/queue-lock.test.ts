import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_ENV } from '../../src/pipeline/faults.js';
import { hasRedisServer, type RedisServer, startRedis } from '../../src/queue/local-redis.js';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';
import { QUEUE_PASSWORD, queueSetup, startWorker, type WorkerProcess } from './queue-helpers.js';

const hasRedis = hasRedisServer();
if (!hasRedis)
  console.warn(
    'queue tests skipped: redis-server is not installed (apt-get install -y redis-server; .ci/run does)',
  );

/*
 * A job that outlives its lock many times over keeps it: two real workers with a 1 s lock, each
 * run holding the harness's thread for 4 s at one step (the test seam's `block`, standing for git on
 * a large tree or a loaded machine: what stalled three queue tests on a 2 s lock). BullMQ renews a
 * lock from the worker's event loop; the run happens in a job process of its own, so the renewal
 * goes on, the other worker never takes the job, it runs once and its result is accepted once.
 */

const work = tempDir('ag-queue-lock-');
const q = queueSetup(work);
let server: RedisServer | null = null;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  if (hasRedis) server = await startRedis({ password: QUEUE_PASSWORD });
}, 30_000);
afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!hasRedis)('a job longer than its lock', () => {
  it('keeps its lock: run once, by one worker, its result accepted once', async () => {
    const url = (server as RedisServer).url;
    for (const name of ['a', 'b']) {
      const w = startWorker(q, url, path.join(work, name), {
        cwd: work,
        name,
        extra: ['--concurrency', '1', '--lock-ms', '1000', '--allow-below-floor'],
        env: { [FAULT_ENV]: 'block:4000:prepare' },
      });
      workers.push(w);
      await w.waitFor(/waiting for jobs/);
    }
    const m = path.join(work, 'matrix.yaml');
    writeFileSync(
      m,
      `tasks: [${path.join(BENCHMARKS, 'js-slugify', 'config.yaml')}]\nagents: [mock-solve]\ntrials: 2\n`,
    );
    const out = path.join(work, 'coordinator');
    const res = await execCli(
      [
        'matrix',
        m,
        '--queue',
        url,
        '--worker-keys',
        q.keysDir,
        '--tracer',
        'off',
        '--json',
        '--output-dir',
        out,
      ],
      { cwd: work, env: q.env },
    );
    expect(res.stderr).not.toMatch(/rejected a result|stalled/);
    const rows = JSON.parse(res.stdout).rows as { index: number; result: string; reason?: string }[];
    expect(rows.map((r) => [r.index, r.result, r.reason])).toEqual([
      [0, 'PASS', undefined],
      [1, 'PASS', undefined],
    ]);
    // Each attempt started once in all, on one worker, and no worker lost a lock.
    const logs = workers.map((w) => w.log()).join('\n');
    for (const i of [0, 1]) expect(logs.match(new RegExp(`: attempt ${i} of batch`, 'g'))).toHaveLength(1);
    expect(logs).not.toMatch(/could not renew lock|Missing lock|stalled/);
    const batchDir = path.join(out, 'batches', readdirSync(path.join(out, 'batches'))[0] as string);
    const accepted = readFileSync(path.join(batchDir, 'queue-results.jsonl'), 'utf8').trim().split('\n');
    expect(accepted.map((l) => JSON.parse(l).index).sort()).toEqual([0, 1]);
  }, 180_000);
});
