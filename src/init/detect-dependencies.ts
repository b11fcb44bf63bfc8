import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { JS_LOCKFILES } from '../config/setup-schema.js';
import { JS_CLIENT_INSTALL, jsClient } from '../pipeline/js-install.js';
import { resolveProgram } from '../pipeline/preflight.js';
import type { ProjectFacts } from './detect-project.js';

/** The registries init names as setup's mirrors; the user replaces them with their own. */
export const NPM_REGISTRY = 'https://registry.npmjs.org/';
export const PYPI_INDEX = 'https://pypi.org/simple/';

/** What init writes so that the dependencies are installed and the tests find them. */
export type DependencySetup = {
  /** `setup.dependencies` entries, as objects the YAML writer quotes. */
  entries: Record<string, string>[];
  /** The test command, changed to run where setup installs (a venv, corepack's client, `src/`). */
  test_command: string[] | null;
  /** What is missing or left to the user, each with how to get it: written as comments and printed. */
  notes: string[];
  /** Variables of this machine the installs need (its TLS trust, corepack's registry): names only. */
  environment: string[];
  /** Interpreters under the user's HOME (pyenv, a venv's base) the sandbox must show read-only. */
  toolchains: string[];
};

/**
 * How this machine's package managers reach a registry: a TLS trust store behind an intercepting
 * proxy, corepack's registry and signing keys. Paths and public settings, never credentials; the
 * config names them and the run copies their values from the environment it is started in.
 */
const TOOL_ENVIRONMENT = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'PIP_CERT',
  'COREPACK_NPM_REGISTRY',
  'COREPACK_INTEGRITY_KEYS',
];

/** A JavaScript project's lockfile and the client it belongs to. */
function jsLockfile(entries: Set<string>): { manager: 'npm' | 'pnpm' | 'yarn'; lockfile: string } | null {
  for (const manager of ['pnpm', 'yarn', 'npm'] as const)
    for (const lockfile of JS_LOCKFILES[manager]) if (entries.has(lockfile)) return { manager, lockfile };
  return null;
}

function hasDependencies(dir: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    return ['dependencies', 'devDependencies'].some(
      (k) => typeof pkg[k] === 'object' && pkg[k] !== null && Object.keys(pkg[k] as object).length > 0,
    );
  } catch {
    return false;
  }
}

function node(dir: string, facts: ProjectFacts, pathVar: string | undefined, out: DependencySetup): void {
  const found = jsLockfile(facts.entries);
  if (!found) {
    if (facts.entries.has('bun.lock') || facts.entries.has('bun.lockb'))
      out.notes.push(
        'bun.lock: setup does not install with bun yet; install node_modules in a setup_command, or commit a package-lock.json',
      );
    else if (hasDependencies(dir))
      out.notes.push(
        'package.json has dependencies but no lockfile: setup installs from a lockfile only (`npm install --package-lock-only`, then commit it)',
      );
    return;
  }
  out.entries.push({ manager: found.manager, lockfile: found.lockfile, mirror: NPM_REGISTRY });
  if (found.manager === 'npm') return;
  const client = jsClient(found.manager, dir, pathVar);
  if (!client) {
    out.notes.push(`${found.manager} is not installed: ${JS_CLIENT_INSTALL[found.manager]}`);
    return;
  }
  // The tests run the client the install ran: corepack's, when package.json pins it.
  const cmd = out.test_command;
  if (client[0] === 'corepack' && cmd?.[0] === found.manager) out.test_command = [...client, ...cmd.slice(1)];
}

/** `requirements.txt`, `requirements-dev.txt`, `requirements/test.txt`: the pinned lists pip installs. */
function requirementsFiles(dir: string, entries: Set<string>): string[] {
  const top = [...entries].filter((n) => /^requirements([-_.][\w.-]+)?\.txt$/.test(n)).sort();
  let nested: string[] = [];
  if (entries.has('requirements')) {
    try {
      nested = readdirSync(path.join(dir, 'requirements'))
        .filter((n) => n.endsWith('.txt'))
        .sort()
        .map((n) => `requirements/${n}`);
    } catch {
      nested = [];
    }
  }
  return [...top, ...nested];
}

/** The package folder of a `src/` layout: `src/<name>/__init__.py`. */
function srcLayout(dir: string): boolean {
  try {
    return readdirSync(path.join(dir, 'src')).some((n) =>
      existsSync(path.join(dir, 'src', n, '__init__.py')),
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

function python(
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
  if (files.length > 0) {
    for (const requirements of files)
      out.entries.push({ manager: 'pip', requirements, target: '.venv', mirror: PYPI_INDEX });
    interpreter = '.venv/bin/python';
  } else {
    if (facts.entries.has('uv.lock'))
      out.notes.push(
        'uv.lock: setup installs requirements files; export one with `uv export --frozen --no-hashes --format requirements-txt -o requirements.txt` and commit it',
      );
    else if (facts.entries.has('poetry.lock'))
      out.notes.push(
        'poetry.lock: setup installs requirements files; export one with `poetry export -f requirements.txt -o requirements.txt` and commit it',
      );
    const venv = projectVenv(dir);
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
  const argv = [interpreter, ...cmd.slice(1)];
  // A src/ layout's package is importable once src is on the path; no install of the project needed.
  out.test_command = srcLayout(dir) ? ['env', 'PYTHONPATH=src', ...argv] : argv;
}

/**
 * How `init`'s config installs the project's dependencies before the agent, and the test command
 * that uses them: the lockfile's client from the npm registry, requirements files from PyPI into a
 * workspace venv, `PYTHONPATH=src` for a `src/` layout; notes for what setup cannot do.
 */
export function detectDependencies(
  dir: string,
  facts: ProjectFacts,
  env: Record<string, string | undefined>,
): DependencySetup {
  const pathVar = env.PATH;
  const out: DependencySetup = {
    entries: [],
    test_command: facts.test_command,
    notes: [],
    environment: [],
    toolchains: [],
  };
  node(dir, facts, pathVar, out);
  python(dir, facts, env, out);
  if (out.entries.length > 0) out.environment = TOOL_ENVIRONMENT.filter((n) => env[n] !== undefined);
  const program = out.test_command?.[0];
  const madeBySetup = out.entries.some((e) => e.manager === 'pip') && program?.startsWith('.venv/');
  if (program && program !== 'env' && !madeBySetup && !resolveProgram(program, dir, pathVar))
    out.notes.push(
      `the test command's program '${program}' is not on PATH: install it, or edit test_command`,
    );
  return out;
}
