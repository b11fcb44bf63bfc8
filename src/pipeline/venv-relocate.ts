import { spawnSync } from 'node:child_process';
import { resolveProgram } from './preflight.js';

/** The interpreter a venv is made from, as the cache key needs it: its real path and version. */
export function pythonIdentity(program: string, cwd: string, pathVar: string | undefined): string | null {
  const exe = resolveProgram(program, cwd, pathVar);
  if (!exe) return null;
  const r = spawnSync(
    exe,
    ['-c', 'import os, sys; print(os.path.realpath(sys.executable)); print(sys.version)'],
    {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: pathVar ?? '' },
    },
  );
  return r.status === 0 ? r.stdout.trim() : null;
}
