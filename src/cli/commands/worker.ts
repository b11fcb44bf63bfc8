import path from 'node:path';
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
import { wholeNumber } from '../flags.js';
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
  const lockMs = wholeNumber('--lock-ms', flags.lockMs, { fallback: 30_000, min: 500, max: 3_600_000 });
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
