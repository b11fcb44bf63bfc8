import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { FileTail } from './file-tail.js';
import { STRLEN } from './record-format.js';

export type BpftraceExit = { code: number | null; signal: NodeJS.Signals | null };

const MAX_STDERR = 64 * 1024;
/**
 * Perf buffer pages per CPU: 64 MiB in all, at most 16 MiB a CPU. The buffers absorb a burst (an
 * `npm install`) while bpftrace is short of CPU; on two cores 4 MiB each still lost events when
 * the host was busy.
 */
export function perfBufferPages(cpus: number): number {
  const pages = (64 * 1024 * 1024) / 4096 / Math.max(1, cpus);
  return Math.min(4096, Math.max(256, 2 ** Math.floor(Math.log2(pages))));
}

/**
 * bpftrace as a child process writing to a file that we tail. A pipe would let a slow reader stall
 * bpftrace, and a stalled bpftrace stops draining the kernel's perf buffers, which then drop
 * events; a file never pushes back. (bpftrace's own `-o` buffers its writes, so stdout is pointed
 * at the file instead.)
 */
export class BpftraceProcess {
  private readonly child: ChildProcess;
  private stderrText = '';
  private exitInfo: BpftraceExit | null = null;
  private killed = false;
  private readonly tail: FileTail;
  readonly exited: Promise<BpftraceExit>;
  /** Resolves once the output has been read to its end after bpftrace stopped writing. */
  readonly drained: Promise<void>;

  constructor(
    scriptPath: string,
    readonly rawPath: string,
    extraEnv: Record<string, string>,
    onLine: (line: string, complete: boolean) => void,
  ) {
    const out = openSync(rawPath, 'w');
    try {
      this.child = spawn('bpftrace', ['-f', 'json', scriptPath], {
        env: {
          ...process.env,
          BPFTRACE_STRLEN: String(STRLEN),
          BPFTRACE_PERF_RB_PAGES: String(perfBufferPages(availableParallelism())),
          ...extraEnv,
        },
        stdio: ['ignore', out, 'pipe'],
      });
    } finally {
      closeSync(out);
    }
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.stderrText += `\n${err.message}`;
        this.exitInfo ??= { code: null, signal: null };
        resolve(this.exitInfo);
      });
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      if (this.stderrText.length < MAX_STDERR) this.stderrText += chunk.toString('utf8');
    });
    this.tail = new FileTail(rawPath, onLine);
    this.drained = this.tail.drained;
    // Exited: no write of its can still be under way.
    void this.exited.then(() => this.tail.end({ writerClosed: true }));
  }

  get stderr(): string {
    return this.stderrText;
  }

  get hasExited(): boolean {
    return this.exitInfo !== null;
  }

  /**
   * Ends bpftrace once its output is known to be complete. SIGINT would make it detach ~100 probes
   * one by one (seconds); SIGKILL is immediate and the kernel frees the probes on its own. The
   * exit itself is not awaited, for the same reason.
   */
  kill(): void {
    if (this.killed || this.exitInfo) return;
    this.killed = true;
    this.child.kill('SIGKILL');
    this.child.unref();
    void this.tail.end();
  }
}

/**
 * Lines of bpftrace's stderr worth reporting: everything but the RLIMIT_MEMLOCK notice it always
 * prints and the compile-time warnings about the generated script (with their source excerpts).
 */
export function stderrProblems(stderr: string): string[] {
  const problems: string[] = [];
  let skipExcerpt = 0;
  for (const line of stderr.split('\n')) {
    if (skipExcerpt > 0 && (/^\s/.test(line) || /^[\s~]*$/.test(line))) {
      skipExcerpt--;
      continue;
    }
    skipExcerpt = 0;
    if (line.trim() === '' || line.includes('RLIMIT_MEMLOCK')) continue;
    if (/WARNING: /.test(line)) {
      skipExcerpt = 2;
      if (/^\S+:\d+:\d+(-\d+)?: WARNING: /.test(line) || /WARNING: Addrspace is not set/.test(line)) continue;
    }
    problems.push(line);
  }
  return problems;
}
