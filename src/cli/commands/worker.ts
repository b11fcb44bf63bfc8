import type { CAC } from 'cac';
import { ConfigError } from '../../errors.js';
import { stopReasonOf } from '../../exec/interrupt.js';
import { signalExitCode } from '../../exec/shutdown.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { connectRedis } from '../../queue/connect.js';
import { parseRedisUrl, redactIn } from '../../queue/redis-url.js';
import { runQueueWorker } from '../../queue/worker.js';
import { type CliIO, type GlobalOptions, oneLine, runContext } from '../io.js';
import { countFlag } from './batch-run.js';

type WorkerFlags = GlobalOptions & {
  queue?: string;
  concurrency?: number | string;
  lockMs?: number | string;
  maxEvidenceMb?: number | string;
};

/** `agentguard worker --queue URL`: run matrix attempts from a Redis queue (docs/scale-out.md). */
export function registerWorker(cli: CAC, io: CliIO, start: (p: () => Promise<number>) => void): void {
  cli
    .command('worker', 'run matrix attempts enqueued with `matrix --queue` on this host, until stopped')
    .option('--queue <url>', 'redis://HOST:PORT[/DB] or rediss:// (TLS); a password in it is never printed')
    .option('--concurrency <n>', 'attempts at a time on this host (default 1)')
    .option(
      '--lock-ms <ms>',
      'how long a silent worker keeps its job before it goes to another worker (default 30000)',
    )
    .option(
      '--max-evidence-mb <n>',
      "largest run evidence sent back through Redis, compressed (default 32); a larger run's stays on this host",
    )
    .action((opts: WorkerFlags) => start(() => workerCommand(io, opts)));
}

export async function workerCommand(io: CliIO, flags: WorkerFlags): Promise<number> {
  if (flags.queue === undefined)
    throw new ConfigError('worker needs --queue. Fix: agentguard worker --queue redis://HOST:6379.');
  const target = parseRedisUrl('--queue', String(flags.queue));
  const concurrency = countFlag('--concurrency', flags.concurrency, 1);
  const lockMs = flags.lockMs === undefined ? 30_000 : Number(flags.lockMs);
  if (!Number.isInteger(lockMs) || lockMs < 500 || lockMs > 3_600_000)
    throw new ConfigError(
      `--lock-ms '${flags.lockMs}' is not a whole number from 500 to 3600000. Fix: e.g. --lock-ms 30000.`,
    );
  const evidenceMb = flags.maxEvidenceMb === undefined ? 32 : Number(flags.maxEvidenceMb);
  if (!Number.isFinite(evidenceMb) || evidenceMb < 0 || evidenceMb > 512)
    throw new ConfigError(
      `--max-evidence-mb '${flags.maxEvidenceMb}' is not a number from 0 to 512. Fix: e.g. --max-evidence-mb 32.`,
    );
  const redis = await connectRedis(target);
  const ctx = await beginRunSession(runContext(io, { ...flags, quiet: true }), io.err);
  // Every line through redactIn: a client error may quote the URL, password and all.
  const log = (line: string) => io.err(oneLine(redactIn(line, target)));
  log(`worker: queue ${target.display}, output ${ctx.outputDir}`);
  try {
    await runQueueWorker(ctx, redis, {
      concurrency,
      lockMs,
      log,
      evidenceLimit: Math.floor(evidenceMb * 1024 * 1024),
    });
  } finally {
    redis.disconnect();
  }
  // It runs until stopped: a signal is how it ends, and its exit code says which.
  const stop = stopReasonOf(ctx.signal);
  return stop?.kind === 'signal' ? signalExitCode(stop.signal) : 0;
}
