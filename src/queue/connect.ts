import { Redis } from 'ioredis';
import { errorMessage, SetupError } from '../errors.js';
import { type RedisTarget, redactIn } from './redis-url.js';

/** How long a first connection may take before the command gives up: the 5 s, with margin. */
export const CONNECT_TIMEOUT_MS = 4000;

/**
 * A Redis client for BullMQ, after one PING has answered. An unreachable, refusing or
 * password-rejecting Redis is a SetupError (exit 2) within CONNECT_TIMEOUT_MS, naming the URL
 * without its password. After that first answer the client reconnects on its own, as BullMQ wants
 * (`maxRetriesPerRequest: null`).
 */
export async function connectRedis(target: RedisTarget, flag = '--queue'): Promise<Redis> {
  let ready = false;
  const client = new Redis(target.url, {
    lazyConnect: true,
    ...(target.password !== undefined ? { password: target.password } : {}),
    maxRetriesPerRequest: null,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Before the first PING answers, one try only: the user is waiting for a verdict on the URL.
    retryStrategy: (times) => (ready ? Math.min(times * 200, 2000) : null),
  });
  // ioredis reports connection trouble as events too; the first PING below is what decides.
  client.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)),
          CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
    ready = true;
    return client;
  } catch (err) {
    client.disconnect();
    throw new SetupError(
      `${flag} ${target.display}: cannot reach Redis (${redactIn(errorMessage(err), target)}). ` +
        'Fix: start redis-server there, or correct the host, port, password or TLS (rediss://).',
    );
  } finally {
    clearTimeout(timer);
  }
}
