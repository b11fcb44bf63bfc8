import path from 'node:path';
import type { PipDependency } from '../config/setup-schema.js';
import type { InstallStep } from './js-install.js';
import { PYPROJECT_INSTALL } from './pyproject-script.js';

/**
 * A pip entry's install: a virtual environment in the workspace, then its pip from the wheel folder
 * (no index) or the mirror, wheels only unless `scripts` (building an sdist runs its setup code).
 * A requirements file is installed as it is; a pyproject's declared dependencies through
 * PYPROJECT_INSTALL, the lockfile's versions as constraints, the project made importable.
 */
export function pipInstall(dep: PipDependency, repoDir: string): InstallStep[] {
  const venv = path.join(repoDir, dep.target);
  const python = path.join(venv, 'bin', 'python');
  const options = ['--disable-pip-version-check', '--no-input', '--no-cache-dir'];
  options.push(
    ...(dep.cache ? ['--no-index', '--find-links', dep.cache] : ['--index-url', dep.mirror ?? '']),
  );
  if (!dep.scripts) options.push('--only-binary', ':all:');
  const create: InstallStep = { argv: ['python3', '-m', 'venv', venv], cwd: repoDir };
  if (dep.pyproject === undefined) {
    const requirements = path.join(repoDir, dep.requirements ?? 'requirements.txt');
    return [create, { argv: [python, '-m', 'pip', 'install', ...options, '-r', requirements], cwd: repoDir }];
  }
  const args = [
    path.join(repoDir, dep.pyproject),
    dep.lockfile ? path.join(repoDir, dep.lockfile) : '',
    JSON.stringify(dep.groups ?? []),
    dep.editable === false ? '0' : '1',
    dep.scripts ? '1' : '0',
    ...options,
  ];
  const cwd = path.dirname(path.join(repoDir, dep.pyproject));
  return [
    create,
    // The program is long; the evidence names it instead of repeating it in every record.
    {
      argv: [python, '-c', PYPROJECT_INSTALL, ...args],
      display: [python, '-c', '<pyproject install>', ...args],
      cwd,
    },
  ];
}
