import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { PolicyMatch } from '../evidence/types.js';

/** Find a program the way execvp would; null when it cannot be run. */
export function resolveProgram(program: string, cwd: string, pathVar: string | undefined): string | null {
  const runnable = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/')) {
    const abs = path.resolve(cwd, program);
    return runnable(abs) ? abs : null;
  }
  for (const dir of (pathVar ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    if (!dir) continue;
    const candidate = path.join(dir, program);
    if (runnable(candidate)) return candidate;
  }
  return null;
}

/** Which unsafe-command patterns an argv matches (joined with spaces, as people read it). */
export function matchUnsafe(
  argv: readonly string[],
  patterns: readonly string[],
  mode: PolicyMatch['mode'],
): PolicyMatch[] {
  const line = argv.join(' ');
  return patterns.filter((p) => new RegExp(p).test(line)).map((pattern) => ({ pattern, mode }));
}
