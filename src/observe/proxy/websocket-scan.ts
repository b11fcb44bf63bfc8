import { constants, inflateRawSync } from 'node:zlib';
import { type LeakScanner, MAX_CAPTURE, MAX_INFLATED, mergeLeaks, StreamScan } from './leak-scan.js';

/** The window permessage-deflate keeps between messages (RFC 7692 context takeover). */
const WINDOW = 32 * 1024;
const TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);

type Frame = {
  fin: boolean;
  compressed: boolean;
  control: boolean;
  left: number;
  mask: Buffer | null;
  offset: number;
};

/**
 * What a WebSocket client sends after an upgrade, read as the server would (RFC 6455): frames
 * unmasked as they pass, a message's fragments in order, a permessage-deflate message (RSV1 on its
 * first frame) inflated with the window of the messages before it (context takeover; a client that
 * resets its context inflates the same). Message and control-frame payloads are scanned as one
 * stream, so a value cut across messages is whole in it. Bytes that are not WebSocket frames stop
 * the reading; the tunnel's own scan still reads them as sent.
 */
export class WebSocketScan {
  readonly stream: StreamScan;
  /** Control frames' payloads (a close reason), apart: they may come between a message's fragments. */
  readonly #control: StreamScan;
  #head = Buffer.alloc(0);
  #frame: Frame | null = null;
  /** The compressed message being gathered, null while none is. */
  #deflated: Buffer[] | null = null;
  #deflatedSize = 0;
  #inMessage = false;
  #window = Buffer.alloc(0);
  #stopped = false;

  constructor(scan: LeakScanner) {
    this.stream = new StreamScan(scan, 'websocket');
    this.#control = new StreamScan(scan, 'websocket');
  }

  push(chunk: Buffer): void {
    let at = 0;
    while (!this.#stopped && at < chunk.length) {
      if (this.#frame === null) {
        const need = this.#headerLength();
        const take = Math.min(chunk.length - at, Math.max(need - this.#head.length, 1));
        this.#head = Buffer.concat([this.#head, chunk.subarray(at, at + take)]);
        at += take;
        if (this.#head.length >= this.#headerLength()) this.#startFrame();
        continue;
      }
      const frame = this.#frame;
      const piece = Buffer.from(chunk.subarray(at, at + frame.left));
      at += piece.length;
      const mask = frame.mask;
      if (mask)
        for (let i = 0; i < piece.length; i++)
          piece[i] = (piece[i] as number) ^ (mask[(frame.offset + i) & 3] as number);
      frame.offset += piece.length;
      frame.left -= piece.length;
      this.#payload(frame, piece);
      if (frame.left === 0) this.#endFrame(frame);
    }
  }

  /** Leaks found over every message; what could not be read is `stream.incomplete`, pieces `stream.pieces`. */
  end() {
    const leaks = this.stream.end();
    mergeLeaks(leaks, this.#control.end());
    this.stream.pieces.push(...this.#control.pieces.splice(0));
    return leaks;
  }

  /** Bytes of the current frame's header, as far as the bytes so far tell. */
  #headerLength(): number {
    if (this.#head.length < 2) return 2;
    const b1 = this.#head[1] as number;
    const len = b1 & 0x7f;
    return 2 + (len === 126 ? 2 : len === 127 ? 8 : 0) + (b1 & 0x80 ? 4 : 0);
  }

  #startFrame(): void {
    const h = this.#head;
    const b0 = h[0] as number;
    const b1 = h[1] as number;
    let len = b1 & 0x7f;
    let at = 2;
    if (len === 126) {
      len = h.readUInt16BE(2);
      at = 4;
    } else if (len === 127) {
      const big = h.readBigUInt64BE(2);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) {
        this.#stop('a WebSocket frame longer than 2^53 bytes');
        return;
      }
      len = Number(big);
      at = 10;
    }
    const opcode = b0 & 0x0f;
    const control = opcode >= 8;
    // Reserved opcodes or bits, a continuation of no message: not a WebSocket stream we can read.
    const unreadable =
      (opcode > 2 && opcode < 8) || opcode > 10
        ? `WebSocket opcode ${opcode} is reserved`
        : b0 & 0x30
          ? 'reserved WebSocket bits are set'
          : opcode === 0 && !this.#inMessage
            ? 'a WebSocket continuation frame with no message'
            : null;
    if (unreadable !== null) {
      this.#stop(unreadable);
      return;
    }
    if (!control && opcode !== 0) {
      this.#inMessage = true;
      if (b0 & 0x40) {
        this.#deflated = [];
        this.#deflatedSize = 0;
      }
    }
    const mask = b1 & 0x80 ? Buffer.from(h.subarray(at, at + 4)) : null;
    this.#head = Buffer.alloc(0);
    this.#frame = {
      fin: (b0 & 0x80) !== 0,
      compressed: !control && this.#deflated !== null,
      control,
      left: len,
      mask,
      offset: 0,
    };
    if (len === 0) this.#endFrame(this.#frame);
  }

  #payload(frame: Frame, piece: Buffer): void {
    if (frame.control) {
      this.#control.push(piece);
      return;
    }
    if (!frame.compressed) {
      this.stream.push(piece);
      return;
    }
    if (this.#deflatedSize + piece.length > MAX_CAPTURE) {
      this.stream.incomplete ??= `a compressed WebSocket message past ${MAX_CAPTURE} bytes was not inflated`;
      return;
    }
    this.#deflated?.push(piece);
    this.#deflatedSize += piece.length;
  }

  #endFrame(frame: Frame): void {
    this.#frame = null;
    if (frame.control || !frame.fin || !this.#inMessage) return;
    this.#inMessage = false;
    const deflated = this.#deflated;
    this.#deflated = null;
    if (deflated === null) return;
    const opts = {
      finishFlush: constants.Z_SYNC_FLUSH,
      maxOutputLength: MAX_INFLATED,
      ...(this.#window.length > 0 ? { dictionary: this.#window } : {}),
    };
    try {
      const text = inflateRawSync(Buffer.concat([...deflated, TAIL]), opts);
      this.#window = Buffer.concat([this.#window, text]).subarray(-WINDOW);
      this.stream.push(text);
    } catch {
      this.stream.incomplete ??= 'a compressed WebSocket message could not be inflated';
    }
  }

  #stop(reason: string): void {
    this.#stopped = true;
    this.#frame = null;
    this.stream.incomplete ??= `${reason}; the rest was scanned only as sent`;
  }
}
