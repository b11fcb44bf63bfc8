import { realpathSync } from 'node:fs';
import path from 'node:path';

/** Folders that are the machine's, not a project's: the exact folders, and all of what lies inside the first group. */
const SYSTEM_TREES = ['/etc', '/proc', '/sys', '/dev', '/boot'];
const SYSTEM_FOLDERS = [
  '/usr',
  '/bin',
  '/sbin',
  '/var',
  '/root',
  '/run',
  '/home',
  '/tmp',
  '/opt',
  '/srv',
  '/mnt',
  '/media',
];

/** "the root folder" / "the system folder /etc" when `dir` (symlinks resolved) must not be a template. */
export function systemFolder(dir: string): string | null {
  let real = path.resolve(dir);
  try {
    real = realpathSync(real);
  } catch {
    // judge the path as written
  }
  if (real === '/') return 'the root folder';
  const top = `/${real.split('/')[1] ?? ''}`;
  if (SYSTEM_TREES.includes(top))
    return real === top ? `the system folder ${top}` : `inside the system folder ${top}`;
  if (SYSTEM_FOLDERS.includes(real) || /^\/lib[^/]*$/.test(real)) return `the system folder ${real}`;
  if (/^\/lib[^/]*$/.test(top) || top === '/bin' || top === '/sbin') return `inside the system folder ${top}`;
  return null;
}
