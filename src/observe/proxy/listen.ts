import { chmod, lstat, unlink } from 'node:fs/promises';
import type { Server } from 'node:net';
import { errorMessage, SetupError } from '../../errors.js';

// sun_path is 108 bytes on Linux, including the terminating NUL.
const MAX_UNIX_PATH_BYTES = 107;

function listenOn(server: Server, target: { path: string } | { port: number; host: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(target, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Removes a Unix socket file left behind by a crashed run; refuses to delete anything else. */
export async function removeSocketFile(path: string): Promise<void> {
  try {
    const stat = await lstat(path);
    if (!stat.isSocket())
      throw new SetupError(`${path} exists and is not a socket; remove it or choose another path`);
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

export async function listenUnix(server: Server, path: string): Promise<void> {
  if (Buffer.byteLength(path) > MAX_UNIX_PATH_BYTES) {
    throw new SetupError(
      `Unix socket path is longer than ${MAX_UNIX_PATH_BYTES} bytes: ${path}; use a shorter run directory`,
    );
  }
  await removeSocketFile(path);
  try {
    await listenOn(server, { path });
  } catch (err) {
    throw new SetupError(`cannot listen on ${path}: ${errorMessage(err)}`, { cause: err });
  }
  // The sandboxed agent may run under another uid; access is governed by the directory instead.
  await chmod(path, 0o666);
}

/** Listens on 127.0.0.1 and returns the bound port. */
export async function listenTcp(server: Server, port: number): Promise<number> {
  try {
    await listenOn(server, { port, host: '127.0.0.1' });
  } catch (err) {
    throw new SetupError(`cannot listen on 127.0.0.1:${port}: ${errorMessage(err)}`, { cause: err });
  }
  const address = server.address();
  if (address === null || typeof address === 'string') throw new SetupError('TCP listener has no port');
  return address.port;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
}
