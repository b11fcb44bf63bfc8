import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * The host's system folders a toolchain needs, the only top-level folders the sandbox shows besides
 * /dev, /proc, its private /tmp and /run, and the run's own folders. Everything else at the top level
 * (/var with its logs, caches and service state, /root, /home, /srv, /mnt, /media, any output
 * folder) is simply absent: a file there is out of reach whatever its mode or the masks.
 */
export const SYSTEM_VIEW = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/** One shown system folder: bound read-only, or (merged /usr) recreated as the same symlink. */
export type ShownSystemFolder =
  | { path: string; how: 'read-only' }
  | { path: string; how: 'symlink'; target: string };

/** The system folders of SYSTEM_VIEW that exist on this host, as the sandbox shows them. */
export function systemView(root = '/'): ShownSystemFolder[] {
  const shown: ShownSystemFolder[] = [];
  for (const dir of SYSTEM_VIEW) {
    const host = path.join(root, dir);
    try {
      const st = lstatSync(host);
      if (st.isSymbolicLink()) shown.push({ path: dir, how: 'symlink', target: readlinkSync(host) });
      else if (st.isDirectory()) shown.push({ path: dir, how: 'read-only' });
    } catch {
      // not on this host
    }
  }
  return shown;
}

/** The bwrap arguments that show one system folder. */
export function systemFolderArgs(f: ShownSystemFolder): string[] {
  return f.how === 'symlink' ? ['--symlink', f.target, f.path] : ['--ro-bind', f.path, f.path];
}

/** One line for observation.json's sandbox facts. */
export function describeSystemView(shown: ShownSystemFolder[]): string {
  return shown.map((f) => (f.how === 'symlink' ? `${f.path} -> ${f.target}` : f.path)).join(', ');
}
