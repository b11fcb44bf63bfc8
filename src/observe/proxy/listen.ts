import { closeSync, openSync } from 'node:fs';
import { chmod, lstat, unlink } from 'node:fs/promises';
import type { Server } from 'node:net';
import path from 'node:path';
import { errorMessage, SetupError } from '../../errors.js';
import { fitsSunPath, MAX_UNIX_PATH_BYTES, throughFolder } from './unix-path.js';

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

/**
 * Listens on the Unix socket `file`. A path longer than sun_path holds (a run folder deep in a
 * user's checkout) is bound through its folder's descriptor, `/proc/self/fd/N/<name>`, which is
 * short whatever the folder; the descriptor stays open until the server closes, because closing
 * the server unlinks the socket by the name it was bound with.
 */
export async function listenUnix(server: Server, file: string): Promise<void> {
  const name = path.basename(file);
  await removeSocketFile(file);
  let dirFd: number | null = null;
  if (!fitsSunPath(file)) {
    if (!fitsSunPath(throughFolder(file, 999_999)))
      throw new SetupError(`Unix socket name is longer than ${MAX_UNIX_PATH_BYTES} bytes: ${name}`);
    dirFd = openSync(path.dirname(file), 'r');
  }
  try {
    await listenOn(server, { path: dirFd === null ? file : throughFolder(file, dirFd) });
  } catch (err) {
    if (dirFd !== null) closeSync(dirFd);
    throw new SetupError(`cannot listen on ${file}: ${errorMessage(err)}`, { cause: err });
  }
  if (dirFd !== null) {
    const fd = dirFd;
    server.once('close', () => closeSync(fd));
  }
  // The sandboxed agent may run under another uid; access is governed by the directory instead.
  await chmod(file, 0o666);
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
