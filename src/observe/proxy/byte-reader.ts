import type { Socket } from 'node:net';

/** Reads exact byte counts from a socket for small binary handshakes (SOCKS5). */
export class ByteReader {
  #buffer: Buffer;
  #wanted = 0;
  #waiter: { resolve: (bytes: Buffer) => void; reject: (err: Error) => void } | undefined;
  #ended = false;
  readonly #socket: Socket;
  readonly #onData = (chunk: Buffer) => {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    // A client flooding bytes before the handshake is done waits on TCP back-pressure, not our memory.
    if (this.#buffer.length > 65536) this.#socket.pause();
    this.#serve();
  };
  readonly #onEnd = () => {
    this.#ended = true;
    this.#serve();
  };

  constructor(socket: Socket, initial: Buffer) {
    this.#socket = socket;
    this.#buffer = initial;
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('close', this.#onEnd);
    // The sniffer paused the socket; an explicitly paused stream stays paused despite 'data' listeners.
    socket.resume();
  }

  /** Resolves with exactly `n` bytes; rejects if the peer goes away first. */
  take(n: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.#wanted = n;
      this.#waiter = { resolve, reject };
      this.#serve();
    });
  }

  /** Stops reading; returns what arrived beyond the handshake (to forward upstream). */
  release(): Buffer {
    this.#socket.off('data', this.#onData);
    this.#socket.off('end', this.#onEnd);
    this.#socket.off('close', this.#onEnd);
    this.#socket.pause();
    const rest = this.#buffer;
    this.#buffer = Buffer.alloc(0);
    return rest;
  }

  #serve(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    if (this.#buffer.length >= this.#wanted) {
      this.#waiter = undefined;
      const bytes = this.#buffer.subarray(0, this.#wanted);
      this.#buffer = this.#buffer.subarray(this.#wanted);
      waiter.resolve(bytes);
    } else if (this.#ended) {
      this.#waiter = undefined;
      waiter.reject(new Error('connection closed during handshake'));
    }
  }
}
