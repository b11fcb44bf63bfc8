import type { NetworkClient, NetworkLeak, NetworkRecord } from '../../evidence/types.js';
import { mergeLeaks, type OutboundScan } from './leak-scan.js';
import type { PlacedPiece } from './piece-ledger.js';

export type RecordListener = (record: NetworkRecord) => void;

/** What records share of the run's scan: the canary pieces' ledger and the own-credential exemption. */
export type RecordScan = Pick<OutboundScan, 'ledger' | 'exempt'>;

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
  readonly #scan: RecordScan;

  constructor(record: NetworkRecord, listener: RecordListener | undefined, scan: RecordScan = {}) {
    this.#scan = scan;
    if (record.leaks !== undefined) {
      const leaks = this.#kept(record.leaks, record.host);
      if (leaks.length > 0) record.leaks = leaks;
      else delete record.leaks;
    }
    this.record = record;
    this.#listener = listener;
    if (record.leaks) scan.ledger?.reportedWhole(record.leaks);
  }

  /** The leaks that count: not the run's own credential on its way to its own host. */
  #kept(leaks: readonly NetworkLeak[], host: string): NetworkLeak[] {
    const exempt = this.#scan.exempt;
    return exempt ? leaks.filter((l) => !exempt(l, host)) : [...leaks];
  }

  /** Bytes are recorded for exchanges that moved data (a tunnel or a forwarded request). */
  countBytes(): void {
    this.#counted = true;
  }

  /**
   * Leaks found in what the request carried (a body, a tunnel's bytes, after the decision): they
   * reach the stored record even after it finished, and a record already published is published
   * again with them, so the live guard judges them while the agent runs. Canary pieces go to the
   * run's ledger, and a canary they complete is a leak of this request.
   */
  addLeaks(found: readonly NetworkLeak[], incomplete?: string, pieces?: readonly PlacedPiece[]): void {
    if (incomplete !== undefined) this.record.scan_incomplete ??= incomplete;
    const ledger = this.#scan.ledger;
    const leaks = this.#kept(found, this.record.host);
    ledger?.reportedWhole(leaks);
    if (ledger && pieces && pieces.length > 0) leaks.push(...ledger.add(this.record, pieces));
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
  readonly #scan: RecordScan;

  constructor(clock: () => number, listener: RecordListener | undefined, scan: RecordScan = {}) {
    this.#clock = clock;
    this.#listener = listener;
    this.#scan = scan;
  }

  begin(fields: Omit<NetworkRecord, 'ts'>): Exchange {
    const exchange = new Exchange({ ts: Math.round(this.#clock()), ...fields }, this.#listener, this.#scan);
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
