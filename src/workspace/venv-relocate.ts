import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const list = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/**
 * The files of a venv that name its own folder or the project's: the scripts' `#!` lines and the
 * activate scripts in bin/, pyvenv.cfg, and in site-packages the .pth and editable finders and the
 * direct_url.json of an editable install. Packages' own files do not.
 */
function pathFiles(venv: string): string[] {
  const bin = path.join(venv, 'bin');
  const files = [path.join(venv, 'pyvenv.cfg'), ...list(bin).map((n) => path.join(bin, n))];
  for (const lib of list(path.join(venv, 'lib'))) {
    const site = path.join(venv, 'lib', lib, 'site-packages');
    for (const n of list(site)) {
      if (n.endsWith('.pth') || n.endsWith('.egg-link') || n.startsWith('__editable__'))
        files.push(path.join(site, n));
      else if (n.endsWith('.dist-info')) files.push(path.join(site, n, 'direct_url.json'));
    }
  }
  return files;
}

/**
 * Moves a venv made in one workspace to another: every mention of the old workspace folder in the
 * files that hold absolute paths becomes the new one. A copied venv then runs its scripts and finds
 * an editable project where this run has them, never in the run that made it.
 */
export function relocateVenv(venv: string, from: string, to: string): void {
  if (from === to) return;
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const mention = new RegExp(`${escaped}(?![\\w.-])`, 'g');
  for (const file of pathFiles(venv)) {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(file); // a link (bin/python) is left as it is
    } catch {
      continue;
    }
    if (!st.isFile() || st.size > 1 << 20) continue;
    const text = readFileSync(file, 'latin1');
    if (!text.includes(from)) continue;
    writeFileSync(file, text.replace(mention, to), { encoding: 'latin1', mode: st.mode });
  }
}
