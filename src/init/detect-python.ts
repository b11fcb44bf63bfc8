import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PYTHON_LOCKFILES } from '../config/setup-schema.js';
import { readTextFile } from '../evidence/read.js';
import { resolveProgram } from '../pipeline/preflight.js';
import type { DependencySetup } from './dependency-setup.js';
import { makeRunsPythonTests, type ProjectFacts } from './detect-project.js';
import { pyprojectDependencies } from './detect-pyproject.js';

/** The index init names as setup's mirror when this machine sets none; the user replaces it with their own. */
export const PYPI_INDEX = 'https://pypi.org/simple/';

/** A requirements file's name: `requirements.txt`, `requirements-dev.txt`, `test-requirements.txt`. */
const REQUIREMENTS = /^(?:([\w.]+)[-_])?requirements(?:[-_.]([\w.-]+))?\.txt$/;

/** What a requirements file is for, when not the tests: the docs' or linters' tools are not installed. */
const NOT_FOR_TESTS = /^(docs?|lint|linting|typing|mypy|release|publish|deploy|build|benchmarks?)$/i;

function forTests(name: string): boolean {
  const m = REQUIREMENTS.exec(name);
  if (!m) return false;
  const purpose = m[1] ?? m[2]?.replace(/\.txt$/, '') ?? '';
  return !NOT_FOR_TESTS.test(purpose);
}

/**
 * `requirements.txt`, `requirements-dev.txt`, `test-requirements.txt`, `requirements/test.txt`:
 * the pinned lists pip installs, base first, then the others; not the docs' or linters'.
 */
function requirementsFiles(dir: string, entries: Set<string>): string[] {
  const base = (n: string) => (n === 'requirements.txt' || n === 'requirements/base.txt' ? 0 : 1);
  const order = (a: string, b: string) => base(a) - base(b) || a.localeCompare(b);
  const top = [...entries].filter(forTests).sort(order);
  let nested: string[] = [];
  if (entries.has('requirements')) {
    try {
      nested = readdirSync(path.join(dir, 'requirements'))
        .filter((n) => n.endsWith('.txt') && !NOT_FOR_TESTS.test(n.slice(0, -4)))
        .map((n) => `requirements/${n}`)
        .sort(order);
    } catch {
      nested = [];
    }
  }
  return [...top, ...nested];
}

/**
 * Whether the project keeps its code under `src/`: a package (`src/<name>/__init__.py`), a
 * namespace package (PEP 420: a folder of Python files with no `__init__.py`, at any of the first
 * few levels), or a single module (`src/<name>.py`).
 */
function srcLayout(dir: string): boolean {
  const src = path.join(dir, 'src');
  try {
    return readdirSync(src, { withFileTypes: true }).some((e) =>
      e.isFile() ? e.name.endsWith('.py') : e.isDirectory() && holdsPython(path.join(src, e.name), 3),
    );
  } catch {
    return false;
  }
}

/** A `.py` file in `dir` or its folders down to `depth` levels (links not followed). */
function holdsPython(dir: string, depth: number): boolean {
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name.endsWith('.py'))) return true;
    return (
      depth > 1 && entries.some((e) => e.isDirectory() && holdsPython(path.join(dir, e.name), depth - 1))
    );
  } catch {
    return false;
  }
}

/** The project's own virtual environment, if it has one at the top (`.venv`, `venv`, `env`). */
export function projectVenv(dir: string): string | null {
  for (const name of ['.venv', 'venv', 'env']) {
    const python = path.join(dir, name, 'bin', 'python');
    try {
      if (statSync(python).isFile()) return name;
    } catch {
      // not this one
    }
  }
  return null;
}

function importable(python: string, module: string, cwd: string): boolean {
  const r = spawnSync(python, ['-c', `import ${module}`], { cwd, stdio: 'ignore', timeout: 20_000 });
  return r.status === 0;
}

const inside = (dir: string, root: string | undefined) =>
  root !== undefined && root !== '/' && (dir === root || dir.startsWith(`${root}/`));

/** Where the sandbox shows nothing of the host: users' homes, root's, and this user's HOME. */
const hidden = (p: string, home: string | undefined) =>
  inside(p, home) || inside(p, '/root') || inside(p, '/home');

/**
 * The interpreter a command should name when the one on PATH lives where the sandbox hides it (a
 * pyenv shim under a HOME): the real executable, and the toolchain folder
 * to show. Null when the interpreter is the system's.
 */
function realInterpreter(
  host: string,
  home: string | undefined,
  cwd: string,
): { exe: string; prefix: string } | null {
  if (!hidden(host, home)) return null;
  const r = spawnSync(host, ['-c', 'import sys; print(sys.executable); print(sys.base_prefix)'], {
    cwd,
    encoding: 'utf8',
    timeout: 20_000,
  });
  const [exe, prefix] = (r.stdout ?? '').trim().split('\n');
  return r.status === 0 && exe && prefix ? { exe, prefix } : null;
}

/** The folder a project venv's interpreter comes from (`home =` in pyvenv.cfg), when under HOME. */
function venvBase(dir: string, venv: string, home: string | undefined): string | null {
  try {
    const cfg = readFileSync(path.join(dir, venv, 'pyvenv.cfg'), 'utf8');
    const bin = /^home\s*=\s*(.+)$/m.exec(cfg)?.[1]?.trim();
    return bin && hidden(bin, home) ? path.dirname(bin) : null;
  } catch {
    return null;
  }
}

/** A lockfile's project whose pyproject declares nothing to install: how to give setup a list. */
const LOCK_FIX: Record<string, string> = {
  'uv.lock':
    'export one with `uv export --frozen --no-hashes --format requirements-txt -o requirements.txt` and commit it, or make .venv yourself (`uv sync`)',
  'poetry.lock':
    "make the project's .venv with poetry and init uses it as it is: `poetry config virtualenvs.in-project true && poetry env remove --all; poetry install` (this works with Debian's poetry 1.3.2; `poetry config virtualenvs.options.system-site-packages true` first lets .venv see Debian's pytest); or export a requirements.txt and commit it, with a poetry that has `export` (`poetry self add poetry-plugin-export` on poetry 1.2+ installed by pipx or pip; Debian's 1.3.2 has neither the command nor the plugin)",
};

/** The packages a Pipfile's [packages] and [dev-packages] name, pytest aside (the test interpreter's). */
function pipfilePackages(dir: string): string[] {
  // A regular file of at most 1 MiB, read as init reads the project's files (no link, no FIFO).
  const read = readTextFile(path.join(dir, 'Pipfile'), 1 << 20, dir);
  if (!read.ok) return [];
  const text = read.text;
  let table = '';
  const names: string[] = [];
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^\]]+)\]/.exec(line);
    if (header) table = (header[1] as string).trim();
    else if (table === 'packages' || table === 'dev-packages') {
      const key = /^\s*"?([A-Za-z0-9][\w.-]*)"?\s*=/.exec(line)?.[1];
      if (key && key.toLowerCase() !== 'pytest') names.push(key);
    }
  }
  return names.sort();
}

function readPyproject(dir: string): string | null {
  try {
    return readFileSync(path.join(dir, 'pyproject.toml'), 'utf8').slice(0, 1 << 20);
  } catch {
    return null;
  }
}

/**
 * The package index setup installs from: pip's own setting on this machine (PIP_INDEX_URL) when it
 * is a plain http(s) address, else PyPI.
 */
function pipMirror(env: Record<string, string | undefined>, out: DependencySetup): string {
  const given = env.PIP_INDEX_URL;
  if (!given) return PYPI_INDEX;
  try {
    const url = new URL(given);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password)
      return given;
  } catch {
    // not a URL: PyPI, with the note below
  }
  out.notes.push(
    'PIP_INDEX_URL is not a plain http(s) address without credentials: the config names PyPI; give your mirror as mirror:',
  );
  return PYPI_INDEX;
}

/**
 * A Python project's install and test interpreter: requirements files, or else the dependencies
 * pyproject.toml declares, into a workspace venv; else the project's own venv, or the user's
 * interpreter shown where the sandbox would hide it.
 */
export function python(
  dir: string,
  facts: ProjectFacts,
  env: Record<string, string | undefined>,
  out: DependencySetup,
): void {
  const pathVar = env.PATH;
  const cmd = out.test_command;
  const runsPython = cmd !== null && /^python3?$/.test(cmd[0] ?? '') && cmd[1] === '-m';
  if (!facts.languages.includes('python') || !runsPython || cmd === null) return;
  const files = requirementsFiles(dir, facts.entries);
  let interpreter = cmd[0] as string;
  const mirror = pipMirror(env, out);
  const venv = projectVenv(dir);
  const pyproject = facts.entries.has('pyproject.toml') ? readPyproject(dir) : null;
  const declared = files.length === 0 && !venv && pyproject ? pyprojectDependencies(pyproject) : null;
  let srcOnPath = srcLayout(dir);
  if (files.length > 0) {
    for (const requirements of files)
      out.entries.push({ manager: 'pip', requirements, target: '.venv', mirror });
    interpreter = '.venv/bin/python';
  } else if (declared?.declares) {
    // uv and poetry projects too: their lockfile's versions are installed by pip, no uv or poetry needed.
    const lockfile = PYTHON_LOCKFILES.find((l) => facts.entries.has(l));
    out.entries.push({
      manager: 'pip',
      pyproject: 'pyproject.toml',
      ...(lockfile ? { lockfile } : {}),
      ...(declared.groups.length > 0 ? { groups: declared.groups } : {}),
      target: '.venv',
      mirror,
    });
    if (lockfile) out.notes.push(`${lockfile}: setup installs its locked versions with pip into .venv`);
    // Poetry's own package sources are poetry's: pip installs from the one mirror the entry names.
    if (/^\[\[tool\.poetry\.source\]\]/m.test(pyproject ?? ''))
      out.notes.push(
        `pyproject.toml names [[tool.poetry.source]] indexes, which pip does not read: setup installs from ${mirror}; if a package is only on your own index, set it as the entry's mirror:`,
      );
    interpreter = '.venv/bin/python';
    srcOnPath = false; // the install makes the project importable, as an editable install does
    // The venv holds only what is declared: a test runner installed by hand elsewhere is not in it.
    const runner = cmd[2];
    if (runner === 'pytest' && !/["']pytest\b|^\s*pytest\s*=/m.test(pyproject ?? ''))
      out.notes.push(
        'pytest is not among the dependencies pyproject.toml declares, so .venv will not have it: add it to a dev or test group',
      );
  } else {
    for (const [lock, fix] of Object.entries(LOCK_FIX))
      if (facts.entries.has(lock) && !venv)
        out.notes.push(`${lock}: pyproject.toml declares no dependencies for setup to install; ${fix}`);
    const pipfile = facts.entries.has('Pipfile') && !venv ? pipfilePackages(dir) : [];
    if (pipfile.length > 0)
      out.notes.push(
        `Pipfile: setup does not install a Pipfile's packages (${pipfile.join(', ')}); export them with \`pipenv requirements --dev > requirements.txt\` and commit it (setup installs it into .venv), or make .venv yourself (\`PIPENV_VENV_IN_PROJECT=1 pipenv install --dev\`), which init uses as it is`,
      );
    const module = cmd[2];
    let host = resolveProgram(interpreter, dir, pathVar);
    if (venv) {
      // The project's venv is copied with the repository; the interpreter it links to is shown.
      interpreter = `${venv}/bin/python`;
      host = path.join(dir, interpreter);
      const base = venvBase(dir, venv, env.HOME);
      if (base) out.toolchains.push(base);
    } else if (host) {
      const real = realInterpreter(host, env.HOME, dir);
      if (real) {
        interpreter = real.exe;
        host = real.exe;
        out.toolchains.push(real.prefix);
      }
    }
    if (module && host && !importable(host, module, dir))
      out.notes.push(
        `${module} is not installed for ${host}: add it to a requirements.txt (setup installs it into .venv), or \`${interpreter} -m pip install ${module}\``,
      );
  }
  // The Makefile's own test target, when it runs only Python's test tools and setup makes the
  // venv the run puts first on PATH: its flags and environment are part of how the tests pass.
  const venvMade = out.entries.some((e) => e.manager === 'pip');
  const viaMake = venvMade && facts.languages.includes('make') && makeRunsPythonTests(dir);
  if (viaMake) {
    facts.other_test_commands = [
      { command: [interpreter, ...cmd.slice(1)], source: facts.test_source ?? 'pyproject.toml' },
      ...facts.other_test_commands.filter((o) => o.command[0] !== 'make'),
    ];
    facts.test_source = 'Makefile target test';
  }
  const argv = viaMake ? ['make', 'test'] : [interpreter, ...cmd.slice(1)];
  // A src/ layout's package is importable once src is on the path; no install of the project needed.
  out.test_command = srcOnPath ? ['env', 'PYTHONPATH=src', ...argv] : argv;
}
