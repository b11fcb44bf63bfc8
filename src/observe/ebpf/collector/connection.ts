import net from 'node:net';

/** What the collector answered to WATCH. */
export type Watching = { version: string; missing: string[] };

const MAX_LINE = 8192;

/**
 * One run's connection to the collector: WATCH registers the run's cgroup and names its output
 * file, STOP ends it. The connection stays open in between, so that a collector that dies is
 * noticed at once (the socket closes) and a run that dies unregisters itself (the collector sees
 * the close).
 */
export class CollectorConnection {
  private buffer = '';
  private readonly lines: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private ended = false;
  /** Why the connection ended before STOP was answered (null while it is open or ended cleanly). */
  lostReason: string | null = null;
  private stopped = false;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      if (this.buffer.length > MAX_LINE * 4) {
        this.fail('the collector sent an overlong line');
        return;
      }
      for (let newline = this.buffer.indexOf('\n'); newline !== -1; newline = this.buffer.indexOf('\n')) {
        this.deliver(this.buffer.slice(0, newline));
        this.buffer = this.buffer.slice(newline + 1);
      }
    });
    socket.on('error', (err) => this.fail(`connection to the collector failed: ${err.message}`));
    socket.on('close', () => this.fail('the collector closed the connection'));
  }

  /** Connects, or rejects with the errno code (ENOENT, ECONNREFUSED: no collector listening). */
  static connect(socketPath: string, timeoutMs = 5000): Promise<CollectorConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(socketPath);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(Object.assign(new Error(`no answer from ${socketPath}`), { code: 'ETIMEDOUT' }));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new CollectorConnection(socket));
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /** Registers the cgroup; the collector then writes its records to `file` (READY first). */
  async watch(cgroupId: bigint, file: string, timeoutMs = 10_000): Promise<Watching> {
    if (/[\n\r]/.test(file)) throw new Error(`the output path has a line break: ${JSON.stringify(file)}`);
    this.socket.write(`WATCH ${cgroupId} ${file}\n`);
    const answer = await this.next(timeoutMs);
    if (answer === null) throw new Error(this.lostReason ?? 'the collector did not answer WATCH');
    const ok = /^OK (.+) (\S+)$/.exec(answer);
    if (!ok)
      throw new Error(
        answer.startsWith('ERR ') ? answer.slice(4) : `unexpected answer: ${answer.slice(0, 200)}`,
      );
    const missing = ok[2] === '-' ? [] : (ok[2] as string).split(',').filter(Boolean);
    return { version: ok[1] as string, missing };
  }

  /**
   * Unregisters the cgroup: the collector drains its buffer into the file, closes it and answers
   * with the events it lost for this run. Null when it could not answer (it died, or timed out).
   */
  async stop(timeoutMs = 15_000): Promise<{ lost: number } | null> {
    if (this.ended) return null;
    this.stopped = true;
    this.socket.write('STOP\n');
    const answer = await this.next(timeoutMs);
    this.close();
    const done = answer === null ? null : /^DONE (\d+)$/.exec(answer);
    if (!done) {
      this.lostReason ??=
        answer === null ? 'the collector did not answer STOP' : `unexpected answer: ${answer}`;
      return null;
    }
    return { lost: Number(done[1]) };
  }

  close(): void {
    this.ended = true;
    this.socket.destroy();
  }

  private next(timeoutMs: number): Promise<string | null> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve(null);
      }, timeoutMs);
      this.waiter = (line) => {
        clearTimeout(timer);
        this.waiter = null;
        resolve(line);
      };
    });
  }

  private deliver(line: string): void {
    if (this.waiter) this.waiter(line);
    else this.lines.push(line);
  }

  private fail(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.stopped || this.waiter) this.lostReason ??= reason;
    this.waiter?.(null);
    this.socket.destroy();
  }
}
