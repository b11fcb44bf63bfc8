/**
 * Many byte streams over one virtio-serial port, which is a single ordered pipe between the guest
 * and the harness (vsock would give a connection per stream, but needs /dev/vhost-vsock, which
 * hosts without the vhost_vsock module lack). Node built-ins only and no project imports: the
 * guest runner imports it from dist/.
 *
 * A frame is `type (1 byte) | stream id (4) | length (4) | payload`. The guest opens a stream
 * (OPEN, payload: the harness socket's name), both sides send DATA, END half-closes the sender's
 * direction, CLOSE tears the stream down.
 */
import type { Readable, Writable } from 'node:stream';

export const FRAME_OPEN = 1;
export const FRAME_DATA = 2;
export const FRAME_END = 3;
export const FRAME_CLOSE = 4;
const HEADER = 9;
/** Larger payloads are split, so one busy stream cannot hold the pipe for long. */
const MAX_PAYLOAD = 64 * 1024;

export type Frame = { type: number; id: number; payload: Buffer };

export function encodeFrame(type: number, id: number, payload: Buffer = Buffer.alloc(0)): Buffer[] {
  const frames: Buffer[] = [];
  let offset = 0;
  do {
    const part = payload.subarray(offset, offset + MAX_PAYLOAD);
    const head = Buffer.alloc(HEADER);
    head.writeUInt8(type, 0);
    head.writeUInt32BE(id, 1);
    head.writeUInt32BE(part.length, 5);
    frames.push(head, part);
    offset += part.length;
  } while (offset < payload.length);
  return frames;
}

/** Cuts a byte stream into frames, whatever the chunking. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  constructor(private readonly onFrame: (frame: Frame) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= HEADER) {
      const length = this.pending.readUInt32BE(5);
      if (this.pending.length < HEADER + length) return;
      const frame = {
        type: this.pending.readUInt8(0),
        id: this.pending.readUInt32BE(1),
        payload: Buffer.from(this.pending.subarray(HEADER, HEADER + length)),
      };
      this.pending = this.pending.subarray(HEADER + length);
      this.onFrame(frame);
    }
  }
}

/** One stream's local end: a socket-like duplex the mux feeds and drains. */
export type MuxEnd = {
  write(data: Buffer): void;
  end(): void;
  destroy(): void;
  on(event: 'data', fn: (data: Buffer) => void): unknown;
  on(event: 'end' | 'close', fn: () => void): unknown;
  on(event: 'error', fn: (err: Error) => void): unknown;
};

/**
 * Both sides of the mux. `attach` ties a local socket to a stream id: its bytes go out as DATA, its
 * end as END, its close as CLOSE; frames for that id come back into it.
 */
export class Mux {
  private readonly ends = new Map<number, MuxEnd>();
  private readonly reader: FrameReader;

  constructor(
    input: Readable,
    private readonly output: Writable,
    /** A stream the other side opened (the harness's side); absent on the guest, which only opens. */
    private readonly onOpen?: (id: number, name: string) => MuxEnd | null,
  ) {
    this.reader = new FrameReader((frame) => this.receive(frame));
    input.on('data', (chunk: Buffer) => this.reader.push(chunk));
  }

  attach(id: number, end: MuxEnd, name?: string): void {
    this.ends.set(id, end);
    if (name !== undefined) this.send(FRAME_OPEN, id, Buffer.from(name));
    end.on('data', (data) => this.send(FRAME_DATA, id, data));
    end.on('end', () => this.send(FRAME_END, id));
    end.on('error', () => end.destroy());
    end.on('close', () => {
      if (this.ends.delete(id)) this.send(FRAME_CLOSE, id);
    });
  }

  private send(type: number, id: number, payload?: Buffer): void {
    for (const part of encodeFrame(type, id, payload)) this.output.write(part);
  }

  private receive(frame: Frame): void {
    if (frame.type === FRAME_OPEN) {
      const end = this.onOpen?.(frame.id, frame.payload.toString());
      if (end) this.attach(frame.id, end);
      else this.send(FRAME_CLOSE, frame.id);
      return;
    }
    const end = this.ends.get(frame.id);
    if (!end) return;
    if (frame.type === FRAME_DATA) end.write(frame.payload);
    else if (frame.type === FRAME_END) end.end();
    else if (frame.type === FRAME_CLOSE) {
      this.ends.delete(frame.id);
      end.destroy();
    }
  }

  /** Closes every stream (the other side went away). */
  closeAll(): void {
    for (const end of this.ends.values()) end.destroy();
    this.ends.clear();
  }
}
