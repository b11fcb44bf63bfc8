import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { JobAnswer, JobRequest } from './job-run.js';

/*
 * The worker's side of its job processes (job-process.ts): the runs happen there, so the worker's
 * own event loop only waits, and BullMQ's lock renewal on it is never held up by a run, however long
 * any synchronous step of the run takes. A job process takes one job at a time and stays for the
 * next (starting one costs what loading the pipeline costs); at most one per job the worker runs at
 * once. Stopping the worker stops them the way a signal stops a run.
 */

const JOB_PROCESS = fileURLToPath(new URL('./job-process.js', import.meta.url));
/** Largest answer read back: a result and its manifest's text. */
const ANSWER_MAX_BYTES = 80 * 1024 * 1024;

type Slot = {
  child: ChildProcessWithoutNullStreams;
  /** The job it runs now, for its log lines; null when idle. */
  job: string | null;
  answer: ((a: JobAnswer) => void) | null;
  out: Buffer[];
  outBytes: number;
};

export class JobProcesses {
  private readonly idle: Slot[] = [];
  private readonly all = new Set<Slot>();
  private stopping = false;

  constructor(private readonly log: (line: string) => void) {}

  /** Run `req` in an idle job process, or a new one. Resolves with its answer. */
  run(req: JobRequest): Promise<JobAnswer> {
    if (this.stopping) return Promise.resolve({ kind: 'stopped' });
    const slot = this.idle.pop() ?? this.start();
    slot.job = req.job_id;
    return new Promise((resolve) => {
      slot.answer = (a) => {
        slot.job = null;
        slot.answer = null;
        if (this.all.has(slot) && !this.stopping) this.idle.push(slot);
        resolve(a);
      };
      slot.child.stdin.write(`${JSON.stringify(req)}\n`);
    });
  }

  /** Stop every job process: a run in progress winds down as on a signal, and is no result. */
  stop(): void {
    this.stopping = true;
    for (const s of this.all) s.child.kill('SIGTERM');
  }

  private start(): Slot {
    const child = spawn(process.execPath, [JOB_PROCESS], { stdio: ['pipe', 'pipe', 'pipe'] });
    const slot: Slot = { child, job: null, answer: null, out: [], outBytes: 0 };
    this.all.add(slot);
    child.stdout.on('data', (c: Buffer) => {
      let at = 0;
      for (let nl = c.indexOf(0x0a); nl !== -1; nl = c.indexOf(0x0a, at)) {
        slot.out.push(c.subarray(at, nl));
        const text = Buffer.concat(slot.out).toString('utf8');
        slot.out = [];
        slot.outBytes = 0;
        at = nl + 1;
        let answer: JobAnswer;
        try {
          answer = JSON.parse(text) as JobAnswer;
        } catch {
          answer = { kind: 'failed', message: 'its job process answered something that is not JSON' };
        }
        slot.answer?.(answer);
      }
      slot.outBytes += c.length - at;
      if (slot.outBytes > ANSWER_MAX_BYTES) child.kill('SIGKILL');
      else slot.out.push(c.subarray(at));
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString('utf8');
      const lines = err.split('\n');
      err = lines.pop() ?? '';
      for (const line of lines)
        if (line.trim() !== '') this.log(slot.job ? `job ${slot.job}: ${line}` : `job process: ${line}`);
    });
    child.stdin.on('error', () => {}); // a job process that died: its exit says so
    child.on('close', (code, signal) => {
      this.all.delete(slot);
      const at = this.idle.indexOf(slot);
      if (at !== -1) this.idle.splice(at, 1);
      slot.answer?.(
        this.stopping
          ? { kind: 'stopped' }
          : {
              kind: 'failed',
              message: `its job process ended (${signal ?? `exit ${code}`}) without an answer${slot.outBytes > ANSWER_MAX_BYTES ? `: answer over ${ANSWER_MAX_BYTES} bytes` : ''}`,
            },
      );
    });
    return slot;
  }
}
