import type { CommandRecord, PolicyMatch } from '../evidence/types.js';
import { appendJsonl } from '../evidence/write.js';
import { RunStopped } from '../exec/interrupt.js';
import { type RunOutcome, runCommand } from '../exec/run-command.js';
import type { SpawnSpec } from '../exec/types.js';
import { neverStarted, startFix } from '../sandbox/start-proof.js';

export type CommandRequest = {
  role: CommandRecord['role'];
  /** What actually runs (after sandbox/tracer wrapping). */
  spec: SpawnSpec;
  /** The command as the config gave it, before wrapping: this is what is recorded. */
  argv: string[];
  display_argv: string[];
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  policy: PolicyMatch[];
  blocked?: boolean;
  logFile?: string;
  onStart?: (pid: number) => void;
  /** Harness wrappers in the command's tree that must not stay stopped (see runCommand). */
  isWrapper?: (argv: string[]) => boolean;
  /** The harness itself ended the command (the live guard killed its process group). */
  stoppedByHarness?: () => boolean;
};

/** Runs the commands of one run and appends each record to commands.jsonl as it finishes. */
export class CommandLog {
  readonly records: CommandRecord[] = [];
  private t0 = performance.now();
  /** `signal` ends every command of the run early (interrupt, run time limit). */
  constructor(
    private readonly file: string,
    private readonly signal?: AbortSignal,
  ) {}

  async run(req: CommandRequest): Promise<{ record: CommandRecord; outcome: RunOutcome | null }> {
    const started = Math.round(performance.now() - this.t0);
    const id = `${req.role}-${this.records.length + 1}`;
    if (req.blocked) {
      const record = this.record(id, req, started, null);
      return { record, outcome: null };
    }
    const outcome = await runCommand({
      spec: req.spec,
      timeoutMs: req.timeoutMs,
      maxOutputBytes: req.maxOutputBytes,
      ...(req.logFile ? { logFile: req.logFile } : {}),
      ...(req.onStart ? { onStart: req.onStart } : {}),
      ...(req.isWrapper ? { isWrapper: req.isWrapper } : {}),
      ...(this.signal ? { signal: this.signal } : {}),
    });
    const record = this.record(id, req, started, outcome);
    const proof = req.spec.startProof;
    // Only a command that ended by itself, with a status: one the harness killed (a timeout, a stop,
    // the guard) took bwrap down too, and bwrap then writes no exit-code either.
    const endedByItself =
      outcome !== null &&
      !outcome.timed_out &&
      !outcome.aborted &&
      outcome.spawn_error === undefined &&
      outcome.signal === null &&
      outcome.exit_code !== null &&
      !this.signal?.aborted &&
      req.stoppedByHarness?.() !== true;
    if (proof && outcome && endedByItself) {
      const cause = neverStarted(proof, outcome.exit_code, outcome.stderr);
      if (cause !== null) {
        throw new RunStopped({
          kind: 'setup-failed',
          step: `the ${proof.sandbox} sandbox`,
          detail: `${cause}; the ${req.role} command never started. Fix: ${startFix(cause)}`,
          harness: true,
        });
      }
    }
    return { record, outcome };
  }

  private record(id: string, req: CommandRequest, started: number, o: RunOutcome | null): CommandRecord {
    const record: CommandRecord = {
      id,
      role: req.role,
      argv: req.argv,
      display_argv: req.display_argv,
      cwd: req.cwd,
      started_ms: started,
      duration_ms: o?.duration_ms ?? 0,
      exit_code: o?.exit_code ?? null,
      signal: o?.signal ?? null,
      timed_out: o?.timed_out ?? false,
      blocked: req.blocked ?? false,
      stdout: o?.stdout ?? '',
      stderr: o?.stderr ?? '',
      stdout_truncated: o?.stdout_truncated ?? false,
      stderr_truncated: o?.stderr_truncated ?? false,
      stdout_bytes: o?.stdout_bytes ?? 0,
      stderr_bytes: o?.stderr_bytes ?? 0,
      policy_matches: req.policy,
    };
    if (o?.spawn_error) record.spawn_error = o.spawn_error;
    this.records.push(record);
    appendJsonl(this.file, record);
    return record;
  }
}
