import { createInterface } from 'node:readline';
import { AgentGuardError, errorMessage } from '../errors.js';
import { disposeAll } from '../exec/disposer.js';
import { killActiveGroups } from '../exec/run-command.js';
import { requestShutdown, signalExitCode } from '../exec/shutdown.js';
import { beginRunSession } from '../pipeline/run-session.js';
import { type JobAnswer, type JobRequest, runJobHere } from './job-run.js';

/*
 * A job process: `node job-process.js` reads JobRequests on stdin, one JSON line each, runs each
 * job in turn and answers each with one JSON line (a JobAnswer) on stdout; warnings go to stderr.
 * A signal stops the run as it stops `agentguard run` (it ends its step and releases what it holds;
 * a second signal, or 30 s, forces it). A job process whose worker is gone (killed -9: it is
 * re-parented) stops itself, so no run outlives the worker that would have reported it; the end of
 * stdin ends it too.
 */

const FORCE_AFTER_MS = 30_000;
const PARENT_POLL_MS = 500;

async function forceExit(signal: NodeJS.Signals): Promise<void> {
  killActiveGroups('SIGKILL');
  await Promise.race([disposeAll(), new Promise((r) => setTimeout(r, 10_000))]);
  killActiveGroups('SIGKILL');
  process.exit(signalExitCode(signal));
}

function stopOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => {
      if (requestShutdown(signal)) setTimeout(() => void forceExit(signal), FORCE_AFTER_MS).unref();
      else void forceExit(signal);
    });
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
  }, PARENT_POLL_MS).unref();
}

const answer = (a: JobAnswer) =>
  new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(a)}\n`, () => resolve()));

async function main(): Promise<void> {
  stopOnSignals();
  // Warnings only, as the worker's own session is quiet: each line reaches the worker's log.
  const warn = (line: string) => process.stderr.write(`${line}\n`);
  // The session (its stop signal, the test seam) from this process's own environment, the worker's;
  // each run's environment is the one the worker allows a job.
  const session = await beginRunSession(
    { outputDir: '', env: process.env, now: () => new Date(), log: () => {}, history: true },
    warn,
  );
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line.trim() === '') continue;
    if (session.signal?.aborted) {
      await answer({ kind: 'stopped' });
      continue;
    }
    const req = JSON.parse(line) as JobRequest;
    const ctx = { ...session, outputDir: req.output_dir, history: req.history, env: req.env };
    try {
      await answer(await runJobHere(ctx, req));
    } catch (err) {
      await answer(
        session.signal?.aborted
          ? { kind: 'stopped' }
          : err instanceof AgentGuardError
            ? { kind: 'refused', message: errorMessage(err) }
            : { kind: 'failed', message: errorMessage(err) },
      );
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`agentguard: internal error in a job process: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
