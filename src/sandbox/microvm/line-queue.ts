/**
 * Lines from a stream (a socket, a child's stdout), one per call of next(); null once the stream
 * has ended. Node built-ins only: the guest runner uses it too.
 */
export function lineQueue(stream: NodeJS.ReadableStream): { next(): Promise<string | null> } {
  let buffered = '';
  const waiting: ((line: string | null) => void)[] = [];
  const ready: (string | null)[] = [];
  const deliver = (line: string | null) => {
    const w = waiting.shift();
    if (w) w(line);
    else ready.push(line);
  };
  stream.on('data', (d: Buffer) => {
    buffered += d.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      deliver(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  stream.on('end', () => deliver(null));
  stream.on('close', () => deliver(null));
  return {
    next: () =>
      ready.length > 0
        ? Promise.resolve(ready.shift() as string | null)
        : new Promise((resolve) => waiting.push(resolve)),
  };
}
