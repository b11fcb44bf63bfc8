import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AttemptJob, evidenceKey, QUEUE_NAME, RESULT_MAX_BYTES } from '../../src/queue/job.js';
import { hasRedisServer, type RedisServer, startRedis } from '../../src/queue/local-redis.js';
import { bundlePaths, sha256Of } from '../../src/queue/tree-bundle.js';
import { signValue, type WorkerKey } from '../../src/queue/worker-key.js';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';
import { QUEUE_PASSWORD, queueSetup, startWorker, type WorkerProcess } from './queue-helpers.js';

const hasRedis = hasRedisServer();
if (!hasRedis)
  console.warn(
    'queue tests skipped: redis-server is not installed (apt-get install -y redis-server; .ci/run does)',
  );

/*
 * The return path is data, not trust. A real coordinator (`matrix --queue`) is answered by a
 * hostile worker in this process, which takes the job from the real Redis and returns a crafted
 * result: a run id that is a path, evidence holding a link chain, a stub report and manifest with
 * self-computed digests (signed by an unregistered key, then by a registered one), an unsigned
 * result, and a genuine sealed run of another batch made by a real worker. Each is refused with one
 * sentence naming why, nothing is written outside the output folder, the attempt is an ERROR row,
 * and `gate` fails the batch.
 */

const work = tempDir('ag-queue-hostile-');
const q = queueSetup(work);
let server: RedisServer | null = null;
let redis: Redis | null = null;
let hostile: Worker | null = null;
/** The hostile worker's own connection: BullMQ does not close a connection it was given. */
let hostileConnection: Redis | null = null;
let real: WorkerProcess | null = null;
/** What the hostile worker answers the next job with. */
let answer: (job: Job<AttemptJob>) => Promise<unknown> = async () => {
  throw new Error('no answer set');
};

beforeAll(async () => {
  if (!hasRedis) return;
  server = await startRedis({ password: QUEUE_PASSWORD });
  redis = new Redis(server.url, { password: QUEUE_PASSWORD, maxRetriesPerRequest: null });
}, 30_000);

afterAll(async () => {
  real?.child.kill('SIGKILL');
  await hostile?.close(true);
  hostileConnection?.disconnect();
  redis?.disconnect();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

const CONFIG = path.join(BENCHMARKS, 'js-slugify', 'config.yaml');

/** A one-attempt matrix run through the queue by the real coordinator: its exit code, stderr and row. */
async function coordinate(name: string, agent: string, config = CONFIG, tracer = ['--tracer', 'off']) {
  const m = path.join(work, `${name}.yaml`);
  writeFileSync(m, `tasks: [${config}]\nagents: [${agent}]\n`);
  const out = path.join(work, name);
  const res = await execCli(
    [
      'matrix',
      m,
      '--queue',
      (server as RedisServer).url,
      '--worker-keys',
      q.keysDir,
      ...tracer,
      '--json',
      '--output-dir',
      out,
    ],
    { cwd: work, env: q.env },
  );
  if (!res.stdout.startsWith('{')) throw new Error(`matrix exited ${res.code}: ${res.stderr}`);
  const [row] = JSON.parse(res.stdout).rows as { result: string; run_id: string | null; reason?: string }[];
  const batch = path.join(out, 'batches', readdirSync(path.join(out, 'batches'))[0] as string);
  return { ...res, row, out, batch };
}

/** A result as a worker of this version makes it, for the job, with the given run and evidence. */
async function craft(
  job: Job<AttemptJob>,
  runId: string,
  dir: string | null,
  over: Record<string, unknown> = {},
) {
  let evidence: { sha256: string; bytes: number } | null = null;
  let digests = { report_sha256: 'a'.repeat(64), manifest_sha256: 'b'.repeat(64) };
  if (dir) {
    const b = bundlePaths(dir, readdirSync(dir));
    await (redis as Redis).set(evidenceKey(b.sha256), b.bytes);
    evidence = { sha256: b.sha256, bytes: b.bytes.length };
    const sha = (f: string) =>
      existsSync(path.join(dir, f)) ? sha256Of(readFileSync(path.join(dir, f))) : 'c'.repeat(64);
    digests = { report_sha256: sha('report.json'), manifest_sha256: sha('manifest.json') };
  }
  return {
    schema: 1,
    batch_id: job.data.batch_id,
    index: job.data.attempt.index,
    worker: { host: 'evil', pid: 1 },
    outcome: {
      run_id: runId,
      result: 'PASS',
      score: 100,
      tests_passed: true,
      failed_checks: [],
      alerts: [],
      benchmark_version: null,
    },
    remote_run_dir: '/nowhere',
    ...digests,
    evidence,
    ...over,
  };
}

/** A stub run folder: a PASS report and a manifest naming this very job, every digest computed by the forger. */
function stubRun(job: Job<AttemptJob>, runId: string): string {
  const dir = path.join(work, `stub-${runId}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'report.json'), JSON.stringify({ run_id: runId, result: 'PASS', score: 100 }));
  const report = sha256Of(readFileSync(path.join(dir, 'report.json')));
  writeFileSync(
    path.join(dir, 'manifest.json'),
    JSON.stringify({
      run_id: runId,
      batch: {
        id: job.data.batch_id,
        attempt: job.data.attempt.index,
        queue: { nonce: job.data.nonce, task_sha256: job.data.task.sha256 },
      },
      verdict: { result: 'PASS', score: 100 },
      files: [{ path: 'report.json', sha256: report }],
    }),
  );
  return dir;
}

async function expectRefused(name: string, agent: string, reason: RegExp) {
  const r = await coordinate(name, agent);
  expect(r.stderr).toMatch(
    new RegExp(`queue: rejected a result from job \\S+: (run \\S+: )?${reason.source}`),
  );
  expect(r.row?.result).toBe('ERROR');
  expect(r.row?.run_id).toBeNull();
  // Nothing unpacked: no run folder took the hostile evidence, not even half of one.
  for (const runs of [path.join(r.out, 'runs'), path.join(r.batch, 'runs')])
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
  const gate = await execCli(['gate', r.batch, '--min-pass-rate', '1'], { cwd: work });
  expect(gate.code).toBe(1);
  return r;
}

describe.skipIf(!hasRedis)('a coordinator refuses hostile results', () => {
  let registered: WorkerKey;
  let stranger: WorkerKey;
  let genuine: { runDir: string; runId: string };

  beforeAll(async () => {
    registered = q.key('hostile-but-registered').key;
    stranger = q.key('stranger', false).key;
    // A genuine sealed run, made by a real worker for a batch of its own.
    real = startWorker(q, (server as RedisServer).url, path.join(work, 'real-worker'), {
      cwd: work,
      name: 'real',
      extra: ['--allow-below-floor'],
    });
    await real.waitFor(/waiting for jobs/);
    const first = await coordinate('genuine', 'mock-solve');
    expect(first.code, first.stderr).toBe(0);
    const noted = JSON.parse(
      readFileSync(path.join(first.batch, 'queue-results.jsonl'), 'utf8').split('\n')[0] as string,
    );
    genuine = { runDir: noted.remote_run_dir, runId: first.row?.run_id as string };
    real.child.kill('SIGTERM');
    await new Promise((r) => real?.child.once('exit', r));
    hostileConnection = (redis as Redis).duplicate();
    hostile = new Worker(QUEUE_NAME, (job: Job<AttemptJob>) => answer(job), {
      connection: hostileConnection,
      lockDuration: 5000,
    });
    await hostile.waitUntilReady();
  }, 120_000);

  it('a run id that is a path (../../x), signed by a registered worker: refused, nothing written outside', async () => {
    answer = async (job) => signValue(await craft(job, '../../x', null), registered);
    await expectRefused(
      'run-id',
      'mock-noop',
      /it is not an agentguard attempt result: field 'outcome\.run_id'/,
    );
    expect(existsSync(path.join(work, 'x'))).toBe(false);
    expect(existsSync(path.join(work, 'run-id', 'x'))).toBe(false);
  }, 60_000);

  it('evidence holding a chain of links out of it: refused, no run folder', async () => {
    answer = async (job) => {
      const dir = stubRun(job, '20261205-120000-0000000a');
      mkdirSync(path.join(dir, 'd'));
      symlinkSync('..', path.join(dir, 'd', 'up'));
      symlinkSync('d/up/../../../../../../../etc', path.join(dir, 'etc'));
      return signValue(await craft(job, '20261205-120000-0000000a', dir), registered);
    };
    await expectRefused('links', 'mock-noop', /bundle entry '\S+' is a link, which this bundle may not hold/);
  }, 60_000);

  it('a stub report and manifest with self-computed digests, signed by an unregistered key: refused', async () => {
    answer = async (job) =>
      signValue(
        await craft(job, '20261205-120000-0000000b', stubRun(job, '20261205-120000-0000000b')),
        stranger,
      );
    await expectRefused(
      'stub-stranger',
      'mock-noop',
      /it is signed by key [0-9a-f]{16}…, which is not registered/,
    );
  }, 60_000);

  it('the same stub signed by a registered key: its seal does not hold, refused', async () => {
    answer = async (job) =>
      signValue(
        await craft(job, '20261205-120000-0000000c', stubRun(job, '20261205-120000-0000000c')),
        registered,
      );
    await expectRefused(
      'stub-registered',
      'mock-noop',
      /run 20261205-120000-0000000c: its seal does not hold/,
    );
  }, 60_000);

  it('an unsigned result: refused', async () => {
    answer = async (job) =>
      await craft(job, '20261205-120000-0000000d', stubRun(job, '20261205-120000-0000000d'));
    await expectRefused('unsigned', 'mock-noop', /it is not signed/);
  }, 60_000);

  it("another batch's genuine sealed PASS run as the answer, signed by a registered key: refused naming its batch", async () => {
    answer = async (job) => signValue(await craft(job, genuine.runId, genuine.runDir), registered);
    await expectRefused(
      'genuine-replay',
      'mock-noop',
      /its sealed manifest names attempt 0 of batch \S+, so it is not the answer/,
    );
  }, 60_000);
  // Last of this group: the hostile worker's one slot stays taken by this answer.
  it('a result of 64 MiB put in Redis by hand: sized there and refused naming the limit, never loaded', async () => {
    answer = async (job) => {
      // Completed as BullMQ would mark it, with a return value no coordinator should hold.
      await (redis as Redis).eval(
        `redis.call('HSET', KEYS[1], 'returnvalue', string.rep('x', tonumber(ARGV[1])), 'finishedOn', ARGV[2])
         redis.call('LREM', KEYS[2], 0, ARGV[3])
         redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])`,
        3,
        `bull:${QUEUE_NAME}:${job.id}`,
        `bull:${QUEUE_NAME}:active`,
        `bull:${QUEUE_NAME}:completed`,
        64 * 1024 * 1024,
        Date.now(),
        job.id as string,
      );
      return new Promise(() => {});
    };
    await expectRefused(
      'huge-result',
      'mock-noop',
      new RegExp(
        `its result is ${64 * 1024 * 1024} bytes in Redis, over the ${RESULT_MAX_BYTES} a coordinator loads`,
      ),
    );
  }, 60_000);
});

/** A task whose config hands `names` of the worker's environment to its agent, which writes them into the diff (or runs `extra`'s agent). */
function envTask(name: string, names: string[], extra = ''): string {
  const task = path.join(work, name);
  mkdirSync(path.join(task, 'repo'), { recursive: true });
  writeFileSync(path.join(task, 'repo', 'README'), 'x\n');
  const echo = names.map((n) => `${n}=$${n}`).join(' ');
  writeFileSync(
    path.join(task, 'config.yaml'),
    [
      `name: ${name}`,
      'task: {prompt: p}',
      'repo: repo',
      "test_command: ['true']",
      `agent_environment: [${names.join(', ')}]`,
      extra || `agent_command: ['sh', '-c', 'echo "${echo}" > leaked.txt']`,
      '',
    ].join('\n'),
  );
  return path.join(task, 'config.yaml');
}

describe.skipIf(!hasRedis)('a worker keeps its environment from its jobs', () => {
  const SECRET = 'sk-worker-secret-5f1e2d';
  let w: WorkerProcess | null = null;
  afterAll(() => w?.child.kill('SIGKILL'));

  it('a job asking for a variable the operator did not allow (--agent-env) is refused naming it; the agent never runs', async () => {
    await hostile?.close(true);
    hostile = null;
    w = startWorker(q, (server as RedisServer).url, path.join(work, 'allow-worker'), {
      cwd: work,
      name: 'allow-worker',
      extra: ['--agent-env', 'PUBLIC_SETTING'],
      env: { WORKER_API_KEY: SECRET, PUBLIC_SETTING: 'ok' },
    });
    await w.waitFor(/waiting for jobs/);
    const r = await coordinate(
      'env-refused',
      'agent-command',
      envTask('env-refused', ['WORKER_API_KEY']),
      [],
    );
    expect(r.row?.result).toBe('ERROR');
    expect(r.row?.run_id).toBeNull();
    expect(r.row?.reason).toMatch(
      /agent_environment asks for WORKER_API_KEY from the worker's environment, which this worker does not pass to agents; not run\. Fix: .*--agent-env WORKER_API_KEY/,
    );
    expect(existsSync(path.join(work, 'allow-worker', 'runs'))).toBe(false);
    expect(r.stderr + r.stdout).not.toContain(SECRET);

    // An agent profile file in the bundle asking for it through env_pass: the same refusal.
    const cfg = envTask('env-profile', [], 'agent_profile: ./p.yaml\n');
    writeFileSync(
      path.join(path.dirname(cfg), 'p.yaml'),
      "schema_version: 1\nname: p\nbin: sh\ncommand: ['-c', 'true', '{task_prompt}']\nenv_pass: [WORKER_API_KEY]\n",
    );
    const p = await coordinate('env-profile', 'agent-profile', cfg, []);
    expect(p.row?.result).toBe('ERROR');
    expect(p.row?.reason).toMatch(/agent_profile '\S+p\.yaml' env_pass asks for WORKER_API_KEY/);

    // The allowed name reaches the agent.
    const ok = await coordinate(
      'env-allowed',
      'agent-command',
      envTask('env-allowed', ['PUBLIC_SETTING']),
      [],
    );
    expect(ok.row?.run_id, ok.stderr).toMatch(/^\d{8}-/);
    const diff = readFileSync(
      path.join(ok.batch, 'runs', ok.row?.run_id as string, 'evidence', 'diff.patch'),
      'utf8',
    );
    expect(diff).toContain('+PUBLIC_SETTING=ok');
    w.child.kill('SIGTERM');
    await new Promise((res) => w?.child.once('exit', res));
    w = null;
  }, 180_000);

  it('a job whose config passes AGENTGUARD_QUEUE_PASSWORD to its agent gets nothing, even allowed: the worker dropped it', async () => {
    const w = startWorker(q, (server as RedisServer).url, path.join(work, 'env-worker'), {
      cwd: work,
      name: 'env-worker',
      passwordFromEnv: true,
      extra: ['--agent-env', 'AGENTGUARD_QUEUE_PASSWORD'],
    });
    await w.waitFor(/waiting for jobs/);
    const task = path.join(work, 'env-task');
    mkdirSync(path.join(task, 'repo'), { recursive: true });
    writeFileSync(path.join(task, 'repo', 'README'), 'x\n');
    writeFileSync(
      path.join(task, 'config.yaml'),
      [
        'name: env-leak',
        'task: {prompt: p}',
        'repo: repo',
        "test_command: ['true']",
        'agent_environment: [AGENTGUARD_QUEUE_PASSWORD]',
        `agent_command: ['sh', '-c', 'echo "pw=$AGENTGUARD_QUEUE_PASSWORD" > leaked.txt']`,
        '',
      ].join('\n'),
    );
    const r = await coordinate('env-leak', 'agent-command', path.join(task, 'config.yaml'), []);
    w.child.kill('SIGTERM');
    expect(r.stderr).not.toMatch(/rejected/);
    expect(r.row?.run_id).toMatch(/^\d{8}-/);
    // The agent ran, in its sandbox at the floor, and wrote what it was given: nothing.
    const diff = readFileSync(
      path.join(r.batch, 'runs', r.row?.run_id as string, 'evidence', 'diff.patch'),
      'utf8',
    );
    expect(diff).toContain('+pw=');
    expect(diff).not.toContain(QUEUE_PASSWORD);
  }, 120_000);
});
