import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { displayPath, joinBytes } from './byte-paths.js';
import { isVenvInterpreterLink } from './venv-link.js';

/** True when `target` is `root` or lies under it (both absolute, normalised). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Copy a task template into a fresh workspace. Symlinks are copied as links, but only when they
 * stay inside the template (or are a venv's link to its interpreter program): a hostile template
 * must not smuggle a link to the host into the agent's workspace. Sockets, fifos and devices are refused. Any `.git` folder is skipped
 * because the harness creates the baseline repository itself, and so is `skip` (agentguard's
 * output folder, when it is the template's `.agentguard`), which holds this very workspace, and any
 * other `.agentguard` folder (an output folder of earlier runs: their canaries, caches and history).
 * Returns how many files it copied and the virtual environments among them (their folders, relative).
 */
export function copyTemplate(
  template: string,
  dest: string,
  configPath: string,
  skip?: string,
): { files: number; venvs: string[] } {
  const root = path.resolve(template);
  const skipRel = skip === undefined ? null : relativeReal(root, skip);
  let files = 0;
  const venvs: string[] = [];
  // Names are bytes (one that is not UTF-8 is still a file to copy), joined under both roots.
  const walk = (rel: Buffer) => {
    const from = joinBytes(Buffer.from(root), rel);
    const to = joinBytes(Buffer.from(dest), rel);
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from, { encoding: 'buffer' })) {
      if (name.equals(GIT)) continue;
      const childRel = joinBytes(rel, name);
      const src = joinBytes(from, name);
      const dst = joinBytes(to, name);
      const st = lstatSync(src);
      if (st.isDirectory()) {
        if (skipRel !== null && displayPath(childRel) === skipRel) continue;
        // Any agentguard output folder (another run's canaries, caches, history), as the sandbox masks it.
        if (name.equals(OUTPUT_DIR)) continue;
        walk(childRel);
      } else if (st.isFile()) {
        copyFileSync(src, dst);
        files++;
        if (name.equals(PYVENV_CFG)) venvs.push(displayPath(rel));
      } else if (st.isSymbolicLink()) {
        const target = readlinkSync(src, { encoding: 'buffer' });
        const resolved = path.resolve(
          path.dirname(path.join(root, displayPath(childRel))),
          displayPath(target),
        );
        if (
          !isInside(root, resolved) &&
          !isVenvInterpreterLink(path.join(root, displayPath(childRel)), resolved)
        ) {
          throw new ConfigError(
            `${configPath}: field 'repo': the template's symlink ${displayPath(childRel)} points outside ` +
              `the template (to ${displayPath(target)}). Fix: replace it with a regular file or a link inside the template.`,
          );
        }
        symlinkSync(target, dst);
        files++;
      } else {
        throw new ConfigError(
          `${configPath}: field 'repo': ${displayPath(childRel)} in the template is a socket, fifo or device. ` +
            'Fix: remove it from the template.',
        );
      }
    }
  };
  walk(Buffer.alloc(0));
  return { files, venvs };
}

const OUTPUT_DIR = Buffer.from('.agentguard');
const GIT = Buffer.from('.git');
/** The file that makes a folder a virtual environment. */
const PYVENV_CFG = Buffer.from('pyvenv.cfg');

/** `target` relative to `root`, both with symlinks resolved, or null when it is not inside. */
function relativeReal(root: string, target: string): string | null {
  try {
    const rel = path.relative(realpathSync(root), realpathSync(target));
    return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? null : rel;
  } catch {
    return null;
  }
}
