import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { LineSplitter } from './line-splitter.js';
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
const TAIL_IDLE_MS = 20;
const READ_SIZE = 1 << 20;

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
  readonly exited: Promise<BpftraceExit>;
  /** Resolves once the output has been read to its end after bpftrace stopped writing. */
  readonly drained: Promise<void>;

  constructor(
    scriptPath: string,
    readonly rawPath: string,
    extraEnv: Record<string, string>,
    private readonly onLine: (line: string, complete: boolean) => void,
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
    this.drained = this.tail();
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
  }

  private async tail(): Promise<void> {
    const handle = await open(this.rawPath, 'r');
    try {
      const splitter = new LineSplitter(this.onLine);
      const buffer = Buffer.alloc(READ_SIZE);
      let position = 0;
      let settled = false;
      for (;;) {
        // Sampled before reading, so everything written before bpftrace stopped is read below.
        const finished = this.killed || this.exitInfo !== null;
        if (finished && !settled) {
          // A write bpftrace was in the middle of when SIGKILL arrived still lands.
          await sleep(TAIL_IDLE_MS);
          settled = true;
        }
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        if (bytesRead > 0) {
          position += bytesRead;
          splitter.push(buffer.subarray(0, bytesRead));
          continue;
        }
        if (finished) break;
        await sleep(TAIL_IDLE_MS);
      }
      splitter.end();
    } finally {
      await handle.close();
    }
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
