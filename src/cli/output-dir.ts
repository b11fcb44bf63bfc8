import { mkdtempSync, realpathSync, rmdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError, SetupError } from '../errors.js';

/**
 * The output folder must exist as a folder, or be creatable, and be writable — checked before
 * anything starts, without creating it. Found late, a bad folder gave `internal error: ENOTDIR`
 * (a file in the way) or a recursive mkdir that spun forever (`/proc/nope`).
 */
export function checkOutputDir(dir: string, fromFlag = true): void {
  const label = fromFlag ? `--output-dir ${dir}` : `the output folder ${dir}`;
  const fix = 'Fix: pass --output-dir a folder you can write, e.g. --output-dir ./.agentguard.';
  if (dir.includes('\0')) throw new SetupError(`${label} contains a NUL byte. ${fix}`);
  let existing = dir;
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(existing).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && path.dirname(existing) !== existing) {
        existing = path.dirname(existing);
        continue;
      }
      if (code === 'ENOTDIR') {
        existing = path.dirname(existing);
        continue;
      }
      throw new SetupError(
        `${label} cannot be used: ${existing} cannot be read (${code ?? 'error'}). ${fix}`,
      );
    }
    if (!isDir) {
      throw new SetupError(
        existing === dir
          ? `${label} is a file, not a folder. ${fix}`
          : `${label} cannot be created: ${existing} is a file, not a folder. ${fix}`,
      );
    }
    break;
  }
  // Prove that a folder can be made where the runs will go, then take it away again: permission
  // bits say nothing to root, and pseudo file systems (/proc, /sys) refuse new entries anyway.
  try {
    rmdirSync(mkdtempSync(path.join(existing, '.agentguard-probe-')));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new SetupError(
      existing === dir
        ? `${label} is not writable (${code}). ${fix}`
        : `${label} cannot be created: ${existing} does not accept new folders (${code}). ${fix}`,
    );
  }
}

/**
 * The template is copied into the output folder: a template that holds the output folder would
 * copy the runs into each new run (and the run's own files into its workspace).
 */
export function checkRepoOutsideOutput(
  cfg: Pick<ResolvedConfig, 'repo' | 'config_path'>,
  outputDir: string,
): void {
  const real = (p: string) => {
    // The output folder may not exist yet: resolve its nearest existing ancestor.
    let head = path.resolve(p);
    let tail = '';
    for (;;) {
      try {
        return path.join(realpathSync(head), tail);
      } catch {
        if (path.dirname(head) === head) return path.resolve(p);
        tail = path.join(path.basename(head), tail);
        head = path.dirname(head);
      }
    }
  };
  const repo = real(cfg.repo);
  const out = real(outputDir);
  // The conventional `.agentguard` at the template's root (a repository judged in place, as
  // `agentguard init` sets up) is left out of the copy, like `.git`.
  if (out === path.join(repo, '.agentguard')) return;
  if (out === repo || out.startsWith(repo === '/' ? '/' : `${repo}/`)) {
    throw new ConfigError(
      `${cfg.config_path}: field 'repo': the template folder ${repo} holds the output folder ${out}, ` +
        'so every run would copy the earlier runs. Fix: keep the template in its own folder (e.g. repo: repo) ' +
        'or pass --output-dir outside it.',
    );
  }
}
