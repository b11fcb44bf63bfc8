import path from 'node:path';
import type { CAC } from 'cac';
import { ConfigError } from '../../errors.js';
import { stopReasonOf } from '../../exec/interrupt.js';
import { signalExitCode } from '../../exec/shutdown.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { AGENT_ENV_FLAG, parseAgentEnvFlag } from '../../queue/agent-env.js';
import { connectRedis } from '../../queue/connect.js';
import { EVIDENCE_MAX_BYTES } from '../../queue/job.js';
import { PASSWORD_ENV, queueTarget, redactIn } from '../../queue/redis-url.js';
import { ALLOW_BELOW_FLOOR_FLAG, runQueueWorker } from '../../queue/worker.js';
import { loadOrCreateWorkerKey, publicKeyFile } from '../../queue/worker-key.js';
import { type CliIO, type GlobalOptions, oneLine, outputDir, runContext } from '../io.js';
import { countFlag } from './batch-run.js';

type WorkerFlags = GlobalOptions & {
  queue?: string;
  concurrency?: number | string;
  lockMs?: number | string;
  maxEvidenceMb?: number | string;
  queuePasswordFile?: string;
  key?: string;
  keygen?: boolean;
  allowBelowFloor?: boolean;
  agentEnv?: string | string[];
};

/** `agentguard worker --queue URL`: run matrix attempts from a Redis queue (docs/scale-out.md). */
export function registerWorker(cli: CAC, io: CliIO, start: (p: () => Promise<number>) => void): void {
  cli
    .command('worker', 'run matrix attempts enqueued with `matrix --queue` on this host, until stopped')
    .option(
      '--queue <url>',
      'redis://HOST:PORT[/DB] or rediss:// (TLS), without a password (see --queue-password-file)',
    )
    .option('--concurrency <n>', 'attempts at a time on this host (default 1)')
    .option(
      '--lock-ms <ms>',
      'how long a silent worker keeps its job before it goes to another worker (default 30000)',
    )
    .option(
      '--max-evidence-mb <n>',
      "largest run evidence sent back through Redis, compressed (default 32, at most 64); a larger run's stays on this host",
    )
    .option(
      '--queue-password-file <file>',
      `the Redis password, in a file only you read (else ${PASSWORD_ENV}); never in the URL`,
    )
    .option(
      '--key <file>',
      "this worker's Ed25519 signing key, made on first start (default OUTPUT_DIR/queue/worker-key.pem); register FILE.pub with the coordinator",
    )
    .option('--keygen', 'make (or read) the key, print its public half for the coordinator, and exit')
    .option(
      ALLOW_BELOW_FLOOR_FLAG,
      'let jobs run below the isolation floor (sandbox local, tracer off, network host) when their task or the coordinator asks: only for queues whose every writer you trust',
    )
    .option(
      `${AGENT_ENV_FLAG} <names>`,
      "variables of this worker's environment a job's agent may be given (comma-separated, repeatable); a job asking for any other is refused",
    )
    .action((opts: WorkerFlags) => start(() => workerCommand(io, opts)));
}

export async function workerCommand(io: CliIO, flags: WorkerFlags): Promise<number> {
  const keyFile = path.resolve(
    flags.key !== undefined ? String(flags.key) : path.join(outputDir(flags), 'queue', 'worker-key.pem'),
  );
  if (flags.keygen === true) {
    const key = loadOrCreateWorkerKey(keyFile);
    io.err(
      `worker key ${key.id.slice(0, 16)}… ${key.created ? 'made in' : 'read from'} ${keyFile}; register ${publicKeyFile(keyFile)} with the coordinator (--worker-keys)`,
    );
    io.out(key.publicPem.trimEnd());
    return 0;
  }
  if (flags.queue === undefined)
    throw new ConfigError('worker needs --queue. Fix: agentguard worker --queue redis://HOST:6379.');
  const target = queueTarget(
    String(flags.queue),
    flags.queuePasswordFile === undefined ? undefined : String(flags.queuePasswordFile),
    process.env,
  );
  // Read once, then gone from this process's environment: a job's config could pass any variable of
  // the worker's to its agent (agent_environment), and the collector and engines inherit it.
  delete process.env[PASSWORD_ENV];
  const concurrency = countFlag('--concurrency', flags.concurrency, 1);
  const lockMs = flags.lockMs === undefined ? 30_000 : Number(flags.lockMs);
  if (!Number.isInteger(lockMs) || lockMs < 500 || lockMs > 3_600_000)
    throw new ConfigError(
      `--lock-ms '${flags.lockMs}' is not a whole number from 500 to 3600000. Fix: e.g. --lock-ms 30000.`,
    );
  const maxMb = EVIDENCE_MAX_BYTES / 1024 / 1024;
  const evidenceMb = flags.maxEvidenceMb === undefined ? 32 : Number(flags.maxEvidenceMb);
  if (!Number.isFinite(evidenceMb) || evidenceMb < 0 || evidenceMb > maxMb)
    throw new ConfigError(
      `--max-evidence-mb '${flags.maxEvidenceMb}' is not a number from 0 to ${maxMb} (what a coordinator fetches). Fix: e.g. --max-evidence-mb 32.`,
    );
  const agentEnv = parseAgentEnvFlag(flags.agentEnv);
  const key = loadOrCreateWorkerKey(keyFile);
  const redis = await connectRedis(target);
  const ctx = await beginRunSession(runContext(io, { ...flags, quiet: true }), io.err);
  // Every line through redactIn: a client error may quote the URL, password and all.
  const log = (line: string) => io.err(oneLine(redactIn(line, target)));
  log(`worker: queue ${target.display}, output ${ctx.outputDir}`);
  log(
    `worker: signing results with key ${key.id.slice(0, 16)}… (${keyFile}${key.created ? ', made now' : ''}); ` +
      `the coordinator accepts them once ${publicKeyFile(keyFile)} is in its --worker-keys`,
  );
  if (flags.allowBelowFloor === true)
    log(
      `worker: ${ALLOW_BELOW_FLOOR_FLAG}: jobs may run below the isolation floor, as their task or coordinator asks`,
    );
  log(
    agentEnv.size > 0
      ? `worker: ${AGENT_ENV_FLAG}: a job's agent may be given ${[...agentEnv].join(', ')} from this environment, nothing else`
      : `worker: a job's agent is given no variable of this environment (${AGENT_ENV_FLAG} allows some)`,
  );
  try {
    await runQueueWorker(ctx, redis, {
      concurrency,
      lockMs,
      log,
      evidenceLimit: Math.floor(evidenceMb * 1024 * 1024),
      key,
      allowBelowFloor: flags.allowBelowFloor === true,
      agentEnv,
    });
  } finally {
    redis.disconnect();
  }
  // It runs until stopped: a signal is how it ends, and its exit code says which.
  const stop = stopReasonOf(ctx.signal);
  return stop?.kind === 'signal' ? signalExitCode(stop.signal) : 0;
}
