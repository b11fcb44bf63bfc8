import { errorMessage } from '../../errors.js';
import type { SysEvent } from '../../evidence/types.js';
import { EventAssembler, type RawEvent } from './event-assembler.js';
import { EventNormaliser } from './event-normaliser.js';
import { REC_READY, REC_TICK } from './record-format.js';
import { type BpfRecord, parseLine, quickRecordType } from './record-parser.js';
import { ReorderBuffer } from './reorder-buffer.js';

/**
 * How long a record may wait for an earlier one. bpftrace reads one perf buffer per CPU, so records
 * from different CPUs arrive up to one poll (100 ms) apart; the collector's single ring buffer is in
 * reservation order, off only by the moment between taking the time and reserving the slot.
 */
export const REORDER_WINDOW_NS = { perCpuBuffers: 300e6, ringBuffer: 50e6 } as const;
const RELEASE_EVERY_NS = 20e6;
const MAX_SAMPLES = 5;
const MAX_LISTENER_WARNINGS = 50;

type EventRecord = Exclude<BpfRecord, { type: 'ready' | 'tick' }>;

/**
 * The lines one run's eBPF source writes (bpftrace's `-f json` output, or the compiled collector's
 * file for the run, in the same format) turned into events: parsed, put back in time order, their
 * string parts joined, normalised. Both ebpf sessions feed it; neither knows the record format.
 */
export class RecordStream {
  private readonly assembler = new EventAssembler();
  /**
   * Records, not yet joined into events, wait here to be put in time order: an exec's argv is sent
   * at syscall entry and its record after the exec, possibly from another CPU's buffer (exec
   * migrates tasks), which with batched wakeups may be read later.
   */
  private readonly reorder: ReorderBuffer<EventRecord>;
  private lastRelease = 0;
  private normaliser: EventNormaliser | null = null;
  /** Wall-clock milliseconds at which event `ts` 0 falls (null until READY). */
  zeroWallMs: number | null = null;
  /** Monotonic ns up to which the source has written everything (its last TICK). */
  lastTick = 0;
  readonly events: SysEvent[] = [];
  private lost = 0;
  private corrupt = 0;
  private readonly corruptSamples: string[] = [];
  private listenerWarnings: string[] = [];
  private readyListener: (() => void) | null = null;

  constructor(
    private readonly source: string,
    reorderWindowNs: number,
    private readonly onEvent?: (event: SysEvent) => void,
  ) {
    this.reorder = new ReorderBuffer<EventRecord>(reorderWindowNs);
  }

  /** Every line is parsed as it arrives (someone listens for events). */
  get live(): boolean {
    return this.onEvent !== undefined;
  }

  get ready(): boolean {
    return this.normaliser !== null && this.zeroWallMs !== null;
  }

  /** Called once, when the READY record arrives (every probe attached, the run registered). */
  onReady(listener: () => void): void {
    this.readyListener = listener;
    if (this.ready) listener();
  }

  /**
   * With an onEvent listener, every line is parsed as it comes. Without one, only clock lines
   * (READY, TICK) need to be read live: the rest can wait for the end, so that parsing does not
   * take CPU from the workload on a small host.
   */
  wantsLive(line: string): boolean {
    if (this.live) return true;
    const type = quickRecordType(line);
    return type === REC_READY || type === REC_TICK;
  }

  /** `complete` is false for a last line without its newline (the writer was killed mid-write). */
  line(line: string, complete: boolean): void {
    const parsed = parseLine(line);
    switch (parsed.kind) {
      case 'ignored':
        return;
      case 'lost':
        this.lost += parsed.count;
        return;
      case 'corrupt':
        // A cut-off tick or bookkeeping line at the very end is no lost event.
        if (!complete && !/"data": \[[1-5],/.test(line)) return;
        this.corrupt++;
        if (this.corruptSamples.length < MAX_SAMPLES)
          this.corruptSamples.push(`${parsed.reason}: ${line.slice(0, 120)}`);
        return;
      case 'record': {
        const { record } = parsed;
        if (record.type === 'ready') this.started(record.t);
        else if (record.type === 'tick') {
          this.lastTick = Math.max(this.lastTick, record.t);
          // Once the source wrote a tick, it has read what the CPUs wrote a window before it.
          // (Ticks come in batches of almost the same time: one release per RELEASE_EVERY_NS.)
          if (this.lastTick - this.lastRelease >= RELEASE_EVERY_NS) {
            this.lastRelease = this.lastTick;
            for (const held of this.reorder.release(this.lastTick)) this.assemble(held);
          }
        } else {
          this.reorder.push(record);
        }
      }
    }
  }

  /** The stream has ended: everything still held becomes events. Returns the problems met. */
  finish(): { lost: number; warnings: string[] } {
    for (const record of this.reorder.drain()) this.assemble(record);
    this.assembler.finish();
    const warnings = [...this.listenerWarnings];
    if (this.corrupt > 0) {
      warnings.push(
        `${this.corrupt} unreadable ${this.source} line(s) counted as lost, e.g. ${this.corruptSamples.join(' | ')}`,
      );
    }
    if (this.assembler.orphanParts > 0) {
      warnings.push(`${this.assembler.orphanParts} string part(s) without their event (lost in the kernel)`);
    }
    return { lost: this.lost + this.corrupt, warnings };
  }

  private started(t: number): void {
    if (this.normaliser) return;
    this.normaliser = new EventNormaliser(t);
    // The kernel's ktime (bpftrace's nsecs) and Node's hrtime are both CLOCK_MONOTONIC.
    this.zeroWallMs = Date.now() - (Number(process.hrtime.bigint()) - t) / 1e6;
    this.readyListener?.();
  }

  private assemble(record: EventRecord): void {
    const raw = this.assembler.push(record);
    if (raw) this.normalise(raw);
  }

  private normalise(raw: RawEvent): void {
    this.normaliser ??= new EventNormaliser(raw.t);
    const event = this.normaliser.push(raw);
    if (!event) return;
    this.events.push(event);
    try {
      this.onEvent?.(event);
    } catch (err) {
      if (this.listenerWarnings.length < MAX_LISTENER_WARNINGS)
        this.listenerWarnings.push(`onEvent threw: ${errorMessage(err)}`);
    }
  }
}

/** CLOCK_MONOTONIC in nanoseconds: the clock of the kernel's timestamps. */
export function nowNs(): number {
  return Number(process.hrtime.bigint());
}

/**
 * Resolves true once the stream's last tick reaches `targetNs`, false when `gone()` says the
 * source stopped writing or the time is up.
 */
export function waitForTick(
  stream: RecordStream,
  targetNs: number,
  timeoutMs: number,
  gone: () => boolean,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve) => {
    const check = () => {
      if (stream.lastTick >= targetNs) resolve(true);
      else if (gone() || Date.now() > deadline) resolve(false);
      else setTimeout(check, 20);
    };
    check();
  });
}
