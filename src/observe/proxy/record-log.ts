import type { NetworkClient, NetworkLeak, NetworkRecord } from '../../evidence/types.js';
import { mergeLeaks } from './leak-scan.js';

export type RecordListener = (record: NetworkRecord) => void;

/**
 * One request's record while it is in flight. The decision is published to the live listener as soon
 * as it is final (denied, upstream reached, or upstream failed); byte counts keep growing until the
 * exchange ends and only the stored record carries them.
 */
export class Exchange {
  readonly record: NetworkRecord;
  bytesUp = 0;
  bytesDown = 0;
  #published = false;
  #finished = false;
  #counted = false;
  readonly #listener: RecordListener | undefined;

  constructor(record: NetworkRecord, listener: RecordListener | undefined) {
    this.record = record;
    this.#listener = listener;
  }

  /** Bytes are recorded for exchanges that moved data (a tunnel or a forwarded request). */
  countBytes(): void {
    this.#counted = true;
  }

  /**
   * Leaks found in what the request carried (a body, a tunnel's bytes, after the decision): they
   * reach the stored record even after it finished, and a record already published is published
   * again with them, so the live guard judges them while the agent runs.
   */
  addLeaks(leaks: readonly NetworkLeak[], incomplete?: string): void {
    if (incomplete !== undefined) this.record.scan_incomplete ??= incomplete;
    if (leaks.length === 0) return;
    this.record.leaks ??= [];
    const before = this.record.leaks.length;
    mergeLeaks(this.record.leaks, leaks);
    if (!this.#published || this.record.leaks.length === before) return;
    try {
      this.#listener?.({ ...this.record, leaks: [...this.record.leaks] });
    } catch {
      // as in publish()
    }
  }

  fail(reason: string): void {
    this.record.reason = reason;
  }

  publish(): void {
    if (this.#published) return;
    this.#published = true;
    try {
      this.#listener?.({ ...this.record });
    } catch {
      // A faulty live listener must not take the proxy down; the record still reaches stop().
    }
  }

  finish(): void {
    if (this.#finished) return;
    this.publish();
    this.#finished = true;
    if (this.#counted) {
      this.record.bytes_up = this.bytesUp;
      this.record.bytes_down = this.bytesDown;
    }
  }

  get finished(): boolean {
    return this.#finished;
  }
}

/** Where a request handler puts its records. */
export type RecordSink = {
  begin(fields: Omit<NetworkRecord, 'ts'>): Exchange;
  note(fields: Omit<NetworkRecord, 'ts'>): void;
};

/** Records in arrival order, timestamped by the run's clock. */
export class RecordLog implements RecordSink {
  readonly #exchanges: Exchange[] = [];
  readonly #clock: () => number;
  readonly #listener: RecordListener | undefined;

  constructor(clock: () => number, listener: RecordListener | undefined) {
    this.#clock = clock;
    this.#listener = listener;
  }

  begin(fields: Omit<NetworkRecord, 'ts'>): Exchange {
    const exchange = new Exchange({ ts: Math.round(this.#clock()), ...fields }, this.#listener);
    this.#exchanges.push(exchange);
    return exchange;
  }

  /** A record that is complete the moment it is made (denials, malformed input, DNS answers). */
  note(fields: Omit<NetworkRecord, 'ts'>): void {
    this.begin(fields).finish();
  }

  /** The same log, every record stamped with the process behind the connection. */
  forClient(client: NetworkClient): RecordSink {
    return {
      begin: (fields) => this.begin({ ...fields, client }),
      note: (fields) => this.note({ ...fields, client }),
    };
  }

  /** Finishes whatever is still open (stop() tore its sockets down) and returns copies. */
  drain(): NetworkRecord[] {
    return this.#exchanges.map((exchange) => {
      exchange.finish();
      return { ...exchange.record };
    });
  }
}

/** Milliseconds since the call, for components started without the run's clock. */
export function clockFromNow(): () => number {
  const start = performance.now();
  return () => performance.now() - start;
}
