import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';

/**
 * A real, private redis-server for the queue tests and bench, on a free loopback port, with no
 * persistence. `.ci/run` installs it; where the binary is missing callers skip and say so.
 */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

export type RedisServer = { url: string; port: number; stop: () => Promise<void> };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.setTimeout(500);
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.once('data', (d) => {
      sock.destroy();
      // A server with a password answers too, asking for it: it is up.
      resolve(/^(\+PONG|-NOAUTH)/.test(d.toString()));
    });
    sock.once('error', () => resolve(false));
    sock.once('timeout', () => {
      sock.destroy();
      resolve(false);
    });
  });
}

/**
 * With `password`, the server requires it. Its whole config goes in on stdin (`redis-server -`), so
 * no password is ever in its argv, where every local user could read it in /proc/PID/cmdline.
 */
export async function startRedis(opts: { password?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['-'], { stdio: ['pipe', 'ignore', 'ignore'] });
  const config = [`port ${port}`, 'bind 127.0.0.1', 'save ""', 'appendonly no'];
  // Quoted as redis.conf reads strings; callers pass plain words.
  if (opts.password !== undefined) config.push(`requirepass "${opts.password}"`);
  child.stdin?.end(`${config.join('\n')}\n`);
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not start`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
