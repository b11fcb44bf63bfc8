import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodeFrame, FRAME_DATA, FRAME_OPEN, type Frame, FrameReader, Mux } from './channel-mux.js';

/** A socket-like end whose writes are recorded and whose events the test fires. */
function fakeEnd() {
  const end = new PassThrough();
  const written: Buffer[] = [];
  const wrapped = Object.assign(end, {
    write: (d: Buffer) => {
      written.push(d);
      return true;
    },
  });
  return { end: wrapped, written };
}

describe('the virtio-serial mux', () => {
  it('cuts frames out of any chunking, large payloads split and rejoined', () => {
    const big = Buffer.alloc(200_000, 7);
    const bytes = Buffer.concat([
      ...encodeFrame(FRAME_OPEN, 1, Buffer.from('proxy.sock')),
      ...encodeFrame(FRAME_DATA, 1, big),
    ]);
    const frames: Frame[] = [];
    const reader = new FrameReader((f) => frames.push(f));
    for (let i = 0; i < bytes.length; i += 777) reader.push(bytes.subarray(i, i + 777));
    expect(frames[0]).toMatchObject({ type: FRAME_OPEN, id: 1 });
    expect(frames[0]?.payload.toString()).toBe('proxy.sock');
    const data = Buffer.concat(frames.slice(1).map((f) => f.payload));
    expect(data.equals(big)).toBe(true);
  });

  it('carries a stream both ways between the guest side and the harness side', async () => {
    const guestToHost = new PassThrough();
    const hostToGuest = new PassThrough();
    const upstream = fakeEnd();
    const opened: string[] = [];
    new Mux(guestToHost, hostToGuest, (_id, name) => {
      opened.push(name);
      return upstream.end;
    });
    const guest = new Mux(hostToGuest, guestToHost);
    const client = fakeEnd();
    guest.attach(5, client.end, 'dns.sock');
    client.end.emit('data', Buffer.from('question'));
    await new Promise((r) => setImmediate(r));
    expect(opened).toEqual(['dns.sock']);
    expect(Buffer.concat(upstream.written).toString()).toBe('question');
    upstream.end.emit('data', Buffer.from('answer'));
    await new Promise((r) => setImmediate(r));
    expect(Buffer.concat(client.written).toString()).toBe('answer');
  });

  it('refuses a stream to a socket the harness does not serve', async () => {
    const guestToHost = new PassThrough();
    const hostToGuest = new PassThrough();
    new Mux(guestToHost, hostToGuest, () => null);
    const guest = new Mux(hostToGuest, guestToHost);
    const client = fakeEnd();
    let closed = false;
    client.end.on('close', () => {
      closed = true;
    });
    guest.attach(1, client.end, '../etc/passwd');
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(true);
  });
});
