import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigOrThrow } from '../../src/config/load.js';
import { JOB_MAX_BYTES } from '../../src/queue/bounded-job.js';
import { type AttemptJob, bundleKey, QUEUE_NAME, versionStamp } from '../../src/queue/job.js';
import { hasRedisServer, type RedisServer, startRedis } from '../../src/queue/local-redis.js';
import { TASK_BUNDLE_LIMIT, TASK_EXPANDED_LIMIT, writeTaskBundle } from '../../src/queue/task-bundle.js';
import { BUNDLE_FORMAT, bundlePaths, sha256Of } from '../../src/queue/tree-bundle.js';
import { BENCHMARKS, CLI, tempDir } from './exec-cli.js';

const hasRedis = hasRedisServer();
if (!hasRedis)
  console.warn(
    'queue tests skipped: redis-server is not installed (apt-get install -y redis-server; .ci/run does)',
  );

/*
 * A real worker process (no --allow-below-floor) given jobs it must refuse: one from another
 * agentguard version, one whose task bundle's bytes do not match the digest in the job, jobs that
 * ask for less isolation than the floor (in the task config or the job's overrides), a config whose
 * repo is a folder of the worker's host, a bundle with a chain of links out of it, and a bundle over
 * the size limit. Each fails with its reason, and nothing runs.
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
    overrides: {},
    nonce: 'c'.repeat(64),
    ...over,
  };
}

/** A task bundle of `files` (paths under a fresh folder → content), uploaded under its digest. */
async function upload(files: Record<string, string>, links: Record<string, string> = {}) {
  const root = mkdtempSync(path.join(work, 'task-'));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), text);
  }
  for (const [l, target] of Object.entries(links)) symlinkSync(target, path.join(root, l));
  const b = bundlePaths(root, readdirSync(root));
  await (redis as Redis).set(bundleKey(b.sha256), b.bytes);
  return b;
}

/** A benchmark's task bundle as the coordinator writes it, with its bytes. */
async function taskBundle(name: string) {
  const file = path.join(work, `bundle-${randomBytes(6).toString('hex')}`);
  const b = await writeTaskBundle(loadConfigOrThrow(path.join(BENCHMARKS, name, 'config.yaml')), file);
  const bytes = readFileSync(file);
  rmSync(file);
  return { ...b, bytes };
}

/** js-slugify's bundle, as a coordinator uploads it. */
async function slugify() {
  const b = await taskBundle('js-slugify');
  await (redis as Redis).set(bundleKey(b.sha256), b.bytes);
  return { sha256: b.sha256, bytes: b.bytes.length, config: b.config };
}

const CONFIG = (extra: string) =>
  `name: t\ntask: {prompt: p}\nrepo: repo\ntest_command: ['true']\nagent_command: ['true']\n${extra}`;

/** Whatever a refused download or extraction left in the worker's task cache: nothing, on every path. */
function leftovers(): string[] {
  const tasks = path.join(work, 'w', 'queue', 'tasks');
  return existsSync(tasks) ? readdirSync(tasks).filter((n) => n.startsWith('.')) : [];
}

/** The worker's peak resident memory (VmHWM), in bytes; `reset` starts its count again from now. */
function peakRss(reset = false): number {
  if (reset) writeFileSync(`/proc/${worker?.pid}/clear_refs`, '5');
  const status = readFileSync(`/proc/${worker?.pid}/status`, 'utf8');
  return Number(status.match(/VmHWM:\s+(\d+) kB/)?.[1]) * 1024;
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
  // First: the worker's lifetime peak memory then says what this job cost it.
  it('a job of 300 MiB in Redis: bounded inside Redis, refused naming the limit, never loaded', async () => {
    const big = 300 * 1024 * 1024;
    await (queue as Queue).pause();
    await (queue as Queue).add('attempt', job('huge-job', {}), { jobId: 'huge-job.0' });
    await (redis as Redis).eval(
      `redis.call('HSET', KEYS[1], 'data', '{"pad":"' .. string.rep('x', tonumber(ARGV[1])) .. '"}')`,
      1,
      `bull:${QUEUE_NAME}:huge-job.0`,
      big,
    );
    await (queue as Queue).resume();
    let reason = '';
    for (let i = 0; i < 300 && reason === ''; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if ((await (redis as Redis).zscore(`bull:${QUEUE_NAME}:failed`, 'huge-job.0')) !== null)
        reason = (await (redis as Redis).hget(`bull:${QUEUE_NAME}:huge-job.0`, 'failedReason')) ?? '?';
    }
    expect(reason).toMatch(
      new RegExp(
        `job huge-job\\.0: the job is \\d+ bytes in Redis, over the ${JOB_MAX_BYTES} a worker loads; not run`,
      ),
    );
    const status = readFileSync(`/proc/${worker?.pid}/status`, 'utf8');
    const peakKb = Number(status.match(/VmHWM:\s+(\d+) kB/)?.[1]);
    console.log(`worker peak RSS after a 300 MiB job: ${Math.round(peakKb / 1024)} MB`);
    expect(peakKb * 1024).toBeLessThan(big);
    await (redis as Redis).del(`bull:${QUEUE_NAME}:huge-job.0`);
  }, 60_000);

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
    const real = await taskBundle('js-slugify');
    const other = await taskBundle('sh-logrotate');
    // The key of the real digest holds other bytes: a swapped or corrupted upload.
    await (redis as Redis).set(bundleKey(real.sha256), other.bytes);
    const reason = await failure(
      'bad-digest',
      job('bad-digest', { task: { sha256: real.sha256, bytes: real.bytes.length, config: real.config } }),
    );
    expect(reason).toMatch(/bundle digest sha256:[0-9a-f]{64} does not match the job's sha256:/);
    expect(existsSync(path.join(work, 'w', 'runs'))).toBe(false);
    expect(existsSync(path.join(work, 'w', 'queue', 'tasks', real.sha256))).toBe(false);
    expect(leftovers()).toEqual([]);
    // The worker says so in its own log too (its 'failed' event may come just after the queue's).
    for (let i = 0; i < 40 && !/job bad-digest\.0: refused or failed/.test(log); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(log).toMatch(/job bad-digest\.0: refused or failed: .*does not match/);
  }, 40_000);

  it("a job whose overrides ask for sandbox local: below the floor, naming the job and the operator's flag", async () => {
    const reason = await failure(
      'floor-override',
      job('floor-override', { task: await slugify(), overrides: { sandbox: 'local' } }),
    );
    expect(reason).toMatch(
      /field 'sandbox': queue job 'floor-override\.0' asks for less isolation than the floor allows/,
    );
    expect(reason).toContain('--allow-below-floor');
    expect(existsSync(path.join(work, 'w', 'runs'))).toBe(false);
  }, 40_000);

  it('a job whose task config sets sandbox local, tracer off and a setup_command: each below the floor, nothing run', async () => {
    const b = await upload({
      't/config.yaml': CONFIG(
        "sandbox: local\ntracer: off\nsetup_command: ['sh', '-c', 'touch /tmp/ag-floor-pwned']\n",
      ),
      't/repo/README': 'x\n',
    });
    const reason = await failure(
      'floor-config',
      job('floor-config', {
        attempt: { ...job('x', {}).attempt, agent: { name: 'c', kind: 'command', argv: ['true'] } },
        task: { sha256: b.sha256, bytes: b.bytes.length, config: 't/config.yaml' },
      }),
    );
    for (const field of ['sandbox', 'setup_command', 'tracer'])
      expect(reason).toContain(`field '${field}': queue job 'floor-config.0'`);
    expect(existsSync('/tmp/ag-floor-pwned')).toBe(false);
    expect(existsSync(path.join(work, 'w', 'runs'))).toBe(false);
  }, 40_000);

  it('a config that reaches below the floor by YAML spellings (a 1.1 merge key, an alias, a key given twice): judged as the loader reads it, nothing run', async () => {
    const cases: [string, string, RegExp][] = [
      // YAML 1.1 merges `<<` keys: the value the loader gets has sandbox local, and so does the floor's.
      [
        'yaml-merge',
        `%YAML 1.1\n---\n${CONFIG('')}<<: {sandbox: local}\n`,
        /field 'sandbox': queue job 'yaml-merge\.0'/,
      ],
      // An alias whose anchor is a harmless value elsewhere (a prompt that reads 'host').
      [
        'yaml-alias',
        CONFIG('network: {mode: *h}\n').replace('task: {prompt: p}', 'task: {prompt: &h host}'),
        /field 'network\.mode': queue job 'yaml-alias\.0'/,
      ],
      ['yaml-twice', `${CONFIG('')}tracer: ebpf\ntracer: off\n`, /Map keys must be unique/],
    ];
    for (const [batch, config, why] of cases) {
      const b = await upload({ 't/config.yaml': config, 't/repo/README': 'x\n' });
      const reason = await failure(
        batch,
        job(batch, {
          attempt: { ...job('x', {}).attempt, agent: { name: 'c', kind: 'command', argv: ['true'] } },
          task: { sha256: b.sha256, bytes: b.bytes.length, config: 't/config.yaml' },
        }),
      );
      expect(reason, batch).toMatch(why);
    }
    expect(existsSync(path.join(work, 'w', 'runs'))).toBe(false);
  }, 90_000);

  it("a config naming a folder of the worker's host (repo, toolchains; absolute or relative): refused alike whether it exists or not, nothing run", async () => {
    const secret = mkdtempSync(path.join(work, 'host-secret-'));
    writeFileSync(path.join(secret, 'id_rsa'), 'PRIVATE\n');
    const absent = path.join(work, 'no-such-folder');
    const reasons: Record<string, string> = {};
    for (const [batch, field, extra] of [
      ['repo-abs', 'repo', `repo: ${secret}`],
      ['repo-abs-absent', 'repo', `repo: ${absent}`],
      ['repo-rel', 'repo', `repo: ${'../'.repeat(12)}${secret.slice(1)}`],
      ['repo-rel-absent', 'repo', `repo: ${'../'.repeat(12)}${absent.slice(1)}`],
      ['toolchain', 'toolchains[0]', `toolchains: [${secret}]`],
      ['toolchain-absent', 'toolchains[0]', `toolchains: [${absent}]`],
    ] as const) {
      const config = extra.startsWith('repo:')
        ? CONFIG('').replace('repo: repo', extra)
        : CONFIG(`${extra}\n`);
      const b = await upload({ 't/config.yaml': config, 't/repo/README': 'x\n' });
      const reason = await failure(
        batch,
        job(batch, { task: { sha256: b.sha256, bytes: b.bytes.length, config: 't/config.yaml' } }),
      );
      expect(reason).toMatch(
        new RegExp(
          `field '${field.replace(/[[\]]/g, '\\$&')}' names .*, outside the job's task bundle; not run`,
        ),
      );
      // What the job learns is the same sentence, whatever is at the path on this host.
      reasons[batch] = reason
        .replace(/^job \S+: /, 'job J: ')
        .replace(/\/\S*\/queue\/tasks\/[0-9a-f]{64}\//, 'BUNDLE/')
        .replaceAll(secret.slice(1), 'PATH')
        .replaceAll(absent.slice(1), 'PATH');
    }
    expect(reasons['repo-abs']).toBe(reasons['repo-abs-absent']);
    expect(reasons['repo-rel']).toBe(reasons['repo-rel-absent']);
    expect(reasons.toolchain).toBe(reasons['toolchain-absent']);
    expect(existsSync(path.join(work, 'w', 'runs'))).toBe(false);
  }, 90_000);

  it("a config whose mirror, network or fake host is the worker's own Redis, or that asks for a container runtime: each below the floor, nothing fetched or run", async () => {
    const redisAt = new URL((server as RedisServer).url);
    const local = `127.0.0.1:${redisAt.port}`;
    const b = await upload({
      't/config.yaml': CONFIG(
        [
          `setup: {dependencies: [{manager: npm, mirror: "http://${local}/"}]}`,
          `network: {mode: allowlist, allow: ["${local}", "[::ffff:127.0.0.1]", "metadata"], hosts: {api.allowed.test: "${local}"}}`,
          'container: {image: alpine, runtime: /tmp/ag-evil-runtime}',
          '',
        ].join('\n'),
      ),
      't/repo/package.json': '{"name":"t","version":"1.0.0"}\n',
      't/repo/package-lock.json': '{"name":"t","version":"1.0.0","lockfileVersion":3,"packages":{}}\n',
    });
    const before = Number(
      (await (redis as Redis).info('stats')).match(/total_connections_received:(\d+)/)?.[1],
    );
    const reason = await failure(
      'floor-reach',
      job('floor-reach', {
        attempt: { ...job('x', {}).attempt, agent: { name: 'c', kind: 'command', argv: ['true'] } },
        task: { sha256: b.sha256, bytes: b.bytes.length, config: 't/config.yaml' },
      }),
    );
    for (const field of [
      'setup.dependencies[0].mirror',
      'network.allow[0]',
      'network.allow[1]',
      'network.allow[2]',
      'network.hosts.api.allowed.test',
      'container.runtime',
    ])
      expect(reason).toContain(`field '${field}': queue job 'floor-reach.0'`);
    expect(reason).toContain(`listing http://${local}/ under mirrors in /etc/agentguard/host-policy.yaml`);
    // No setup ran: only this test's own client and the worker's reached Redis meanwhile.
    const after = Number(
      (await (redis as Redis).info('stats')).match(/total_connections_received:(\d+)/)?.[1],
    );
    expect(after - before).toBeLessThanOrEqual(2);
    expect(existsSync(path.join(work, 'w', 'runs'))).toBe(false);
  }, 40_000);

  it('a task bundle with a chain of two links that resolves out of it: refused, nothing extracted', async () => {
    // Each link's text stays inside (`d/up -> ..`, `esc -> d/up/..`); resolved, esc is the bundle's parent.
    const b = await upload(
      { 't/config.yaml': CONFIG(''), 't/repo/README': 'x\n', 'd/keep': '' },
      {
        'd/up': '..',
        esc: 'd/up/..',
      },
    );
    const reason = await failure(
      'link-chain',
      job('link-chain', { task: { sha256: b.sha256, bytes: b.bytes.length, config: 't/config.yaml' } }),
    );
    expect(reason).toMatch(/bundle link 'esc' points out of its folder/);
    expect(existsSync(path.join(work, 'w', 'queue', 'tasks', b.sha256))).toBe(false);
  }, 40_000);

  it('a 1 MB bundle that expands to 1 GiB: refused at the expansion limit, the worker stays small', async () => {
    // Concatenated gzip members are one valid stream: a header naming a file of 1 GiB, then
    // 1024 × (1 MiB of zeros) ≈ 1 MB compressed.
    const head = gzipSync(
      `{"format":"${BUNDLE_FORMAT}"}\n{"path":"f","type":"file","exec":false,"size":${1 << 30}}\n`,
    );
    const member = gzipSync(Buffer.alloc(1 << 20, 0), { level: 9 });
    const bomb = Buffer.concat([head, ...Array.from({ length: 1024 }, () => member)]);
    expect(bomb.length).toBeLessThan(1_100_000);
    const digest = sha256Of(bomb);
    await (redis as Redis).set(bundleKey(digest), bomb);
    const reason = await failure(
      'bomb',
      job('bomb', { task: { sha256: digest, bytes: bomb.length, config: 't/config.yaml' } }),
    );
    expect(reason).toContain(`bundle expands past ${TASK_EXPANDED_LIMIT} bytes`);
    // The worker's peak memory over its whole life (VmHWM), bomb included.
    const status = readFileSync(`/proc/${worker?.pid}/status`, 'utf8');
    const peakKb = Number(status.match(/VmHWM:\s+(\d+) kB/)?.[1]);
    console.log(`worker peak RSS after a 1 GiB bomb: ${Math.round(peakKb / 1024)} MB`);
    // Streamed, a chunk at a time: the worker never holds what the bundle expands to.
    expect(peakKb * 1024).toBeLessThan(TASK_EXPANDED_LIMIT);
    expect(leftovers()).toEqual([]);
    await (redis as Redis).del(bundleKey(digest));
  }, 60_000);

  it('a task bundle of 60 MiB that does not compress: streamed to disk, the worker never holds it', async () => {
    const root = mkdtempSync(path.join(work, 'task-'));
    mkdirSync(path.join(root, 't/repo'), { recursive: true });
    // The config names a repo the bundle lacks: refused once extracted, so nothing runs.
    writeFileSync(path.join(root, 't/config.yaml'), CONFIG('').replace('repo: repo', 'repo: gone'));
    writeFileSync(path.join(root, 't/repo/blob'), randomBytes(60 * 1024 * 1024));
    const b = bundlePaths(root, readdirSync(root));
    expect(b.bytes.length).toBeGreaterThan(60 * 1024 * 1024);
    await (redis as Redis).set(bundleKey(b.sha256), b.bytes);
    const before = peakRss(true);
    const reason = await failure(
      'streamed',
      job('streamed', { task: { sha256: b.sha256, bytes: b.bytes.length, config: 't/config.yaml' } }),
    );
    const grew = peakRss() - before;
    console.log(
      `worker peak RSS grew by ${Math.round(grew / 1048576)} MB for a ${Math.round(b.bytes.length / 1048576)} MB bundle`,
    );
    expect(reason).toMatch(/repo/);
    // Extracted whole, byte for byte, from the file it was streamed into.
    const blob = path.join(work, 'w', 'queue', 'tasks', b.sha256, 't/repo/blob');
    expect(sha256Of(readFileSync(blob))).toBe(sha256Of(readFileSync(path.join(root, 't/repo/blob'))));
    // Holding the bundle alone would cost 60 MiB, unpacking it in memory twice that again; what a
    // stream costs is its chunks and the collector's slack (11–26 MB measured under load).
    expect(grew).toBeLessThan(48 * 1024 * 1024);
    expect(leftovers()).toEqual([]);
    await (redis as Redis).del(bundleKey(b.sha256));
  }, 90_000);

  it('a task bundle cut short, under the digest of its cut bytes: refused, nothing left behind', async () => {
    const whole = await upload({ 't/config.yaml': CONFIG(''), 't/repo/README': 'x\n'.repeat(5000) });
    const cut = whole.bytes.subarray(0, Math.floor(whole.bytes.length / 2));
    const digest = sha256Of(cut);
    await (redis as Redis).set(bundleKey(digest), cut);
    const reason = await failure(
      'cut-short',
      job('cut-short', { task: { sha256: digest, bytes: cut.length, config: 't/config.yaml' } }),
    );
    expect(reason).toMatch(/bundle (is not a gzip'd record stream|is cut short|ends inside)/);
    expect(existsSync(path.join(work, 'w', 'queue', 'tasks', digest))).toBe(false);
    expect(leftovers()).toEqual([]);
  }, 40_000);

  it('a task bundle over the size limit: refused by its size in Redis, before the worker fetches it', async () => {
    const digest = 'e'.repeat(64);
    await (redis as Redis).setrange(bundleKey(digest), TASK_BUNDLE_LIMIT, 'x');
    const reason = await failure(
      'too-big',
      job('too-big', { task: { sha256: digest, bytes: 1, config: 't/config.yaml' } }),
    );
    expect(reason).toContain(
      `is ${TASK_BUNDLE_LIMIT + 1} bytes, over the ${TASK_BUNDLE_LIMIT} a worker fetches`,
    );
    await (redis as Redis).del(bundleKey(digest));
  }, 40_000);
});
