import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { readTextFile } from '../evidence/read.js';

/** What `agentguard init` found in a repository, enough to write a config that runs as is. */
export type ProjectFacts = {
  /** The repository folder's name, as a config `name`. */
  name: string;
  /** Ecosystems found, in the order their files were looked for (node, python, go, rust, make). */
  languages: Language[];
  /** The command chosen to run the tests, or null when nothing says how. */
  test_command: string[] | null;
  /** Why that command: the file that named it. */
  test_source: string | null;
  /** Other ways to run the tests that were found, for a comment. */
  other_test_commands: { command: string[]; source: string }[];
  /** Top-level entries, to tell which folders and lockfiles exist. */
  entries: Set<string>;
};

export type Language = 'node' | 'python' | 'go' | 'rust' | 'make';

/** The script `npm init` writes: it fails by design, so it is no test command. */
const NPM_PLACEHOLDER = /no test specified/;

/** The most init reads of one project file (package.json, pyproject.toml, a Makefile). */
const MAX_PROJECT_FILE_BYTES = 1024 * 1024;

/**
 * A project file of the clone `dir`, or null when it is absent. The clone is someone else's: a
 * link (to /dev/zero, out of the clone), a FIFO or a device is refused, not read, and so is a file
 * over the cap.
 */
function readText(dir: string, name: string): string | null {
  const read = readTextFile(path.join(dir, name), MAX_PROJECT_FILE_BYTES, dir);
  if (read.ok) return read.text;
  if (read.error.code === 'missing') return null;
  throw new ConfigError(
    `${read.error.message}, so init cannot read it. Fix: make it a regular file of the repository (at most ${MAX_PROJECT_FILE_BYTES / (1024 * 1024)} MiB), or write the config by hand.`,
  );
}

function topEntries(dir: string): Set<string> {
  try {
    return new Set(readdirSync(dir));
  } catch {
    return new Set();
  }
}

function nodeTest(dir: string, entries: Set<string>): { command: string[]; source: string } | null {
  const text = readText(dir, 'package.json');
  if (text === null) return null;
  let scripts: Record<string, unknown> = {};
  try {
    const pkg = JSON.parse(text) as { scripts?: Record<string, unknown> };
    scripts = pkg.scripts ?? {};
  } catch {
    return null;
  }
  const test = scripts.test;
  if (typeof test === 'string' && test.trim() !== '' && !NPM_PLACEHOLDER.test(test)) {
    // The lockfile says which client the project uses; `npm test` works for the others too, but
    // a pnpm or yarn project's script may call that client.
    const client = entries.has('pnpm-lock.yaml') ? 'pnpm' : entries.has('yarn.lock') ? 'yarn' : 'npm';
    const bun = entries.has('bun.lock') || entries.has('bun.lockb');
    // `bun test` is bun's own runner, not the script: the script is `bun run test`.
    if (bun)
      return {
        command: test.trim() === 'bun test' ? ['bun', 'test'] : ['bun', 'run', 'test'],
        source: 'package.json scripts.test',
      };
    return { command: [client, 'test'], source: 'package.json scripts.test' };
  }
  if (entries.has('bun.lock') || entries.has('bun.lockb'))
    return { command: ['bun', 'test'], source: 'bun.lock' };
  for (const folder of ['test', 'tests']) {
    if (entries.has(folder)) return { command: ['node', '--test', `${folder}/`], source: `${folder}/` };
  }
  return null;
}

/** A line of a tox.ini `commands`, a noxfile's `session.run`, a requirements list: pytest named as a word. */
const NAMES_PYTEST = /(^|[\s"'=(,[])(py\.test|pytest)([\s"'<>=~!;,)\]]|$)/m;

/** Test modules of a tests folder (or the top), at most a few, read to tell pytest's style from unittest's. */
function testModules(dir: string, entries: Set<string>): string[] {
  const folders = ['tests', 'test'].filter((f) => entries.has(f));
  const found: string[] = [];
  for (const folder of folders.length > 0 ? folders : ['']) {
    try {
      for (const n of readdirSync(path.join(dir, folder)))
        if (/^test_.*\.py$|_test\.py$/.test(n)) found.push(folder ? `${folder}/${n}` : n);
    } catch {
      // no such folder
    }
  }
  return found.sort().slice(0, 20);
}

/**
 * Where a project says its tests are pytest's, beyond pytest's own config files: tox's or nox's
 * test command (neither need be installed: pytest runs what they would), setup.cfg's or a
 * requirements list's test dependencies, a Pipfile's dev packages, or test modules written for
 * pytest (importing it, or bare `def test_` functions, which unittest never collects).
 */
function pytestNamedBy(dir: string, entries: Set<string>, setupCfg: string | null): string | null {
  const tox = readText(dir, 'tox.ini');
  const commands = /^\[testenv[^\]]*\][^[]*?^commands\s*=([^[]*)/ms.exec(tox ?? '')?.[1];
  if (commands && NAMES_PYTEST.test(commands)) return 'tox.ini [testenv] commands';
  const nox = entries.has('noxfile.py') ? readText(dir, 'noxfile.py') : null;
  if (nox && /session\.run\(\s*["'](?:pytest|py\.test)["']|["']-m["'],\s*["']pytest["']/.test(nox))
    return 'noxfile.py';
  if (setupCfg && NAMES_PYTEST.test(setupCfg)) return 'setup.cfg';
  if (entries.has('Pipfile') && NAMES_PYTEST.test(readText(dir, 'Pipfile') ?? '')) return 'Pipfile';
  for (const name of [...entries].filter((n) => /requirements.*\.txt$/.test(n)).sort())
    if (NAMES_PYTEST.test(readText(dir, name) ?? '')) return name;
  for (const rel of testModules(dir, entries)) {
    let text = '';
    try {
      text = readText(dir, rel) ?? '';
    } catch {
      continue; // a link or a special file among the tests: not read, as init reads no other
    }
    const imports = /^\s*(import pytest|from pytest import|from _pytest)/m.test(text);
    const bare = /^def test_/m.test(text) && !/\bunittest\b/.test(text);
    if (imports || bare) return rel;
  }
  return null;
}

function pythonTest(dir: string, entries: Set<string>): { command: string[]; source: string } | null {
  const pyproject = readText(dir, 'pyproject.toml');
  const setupCfg = readText(dir, 'setup.cfg');
  const tox = readText(dir, 'tox.ini');
  const pytestConfig =
    entries.has('pytest.ini') ||
    entries.has('conftest.py') ||
    /^\[tool\.pytest/m.test(pyproject ?? '') ||
    /^\[tool:pytest\]/m.test(setupCfg ?? '') ||
    /^\[pytest\]/m.test(tox ?? '') ||
    /\bpytest\b/.test(pyproject ?? '');
  const isPython =
    pytestConfig ||
    pyproject !== null ||
    entries.has('setup.py') ||
    setupCfg !== null ||
    tox !== null ||
    entries.has('noxfile.py') ||
    entries.has('Pipfile');
  const testsDir = ['tests', 'test'].find((f) => entries.has(f));
  // unittest's load_tests protocol: the tests package gathers its modules itself, whatever their names.
  const hasTests =
    testsDir !== undefined &&
    (hasFile(path.join(dir, testsDir), /^test.*\.py$/) || loadsTests(dir, testsDir));
  const namedBy = pytestConfig || !(isPython || hasTests) ? null : pytestNamedBy(dir, entries, setupCfg);
  if (pytestConfig || namedBy) {
    // The file that said so: pytest's own config files in the order pytest reads them.
    const source = entries.has('pytest.ini')
      ? 'pytest.ini'
      : /^\[tool\.pytest/m.test(pyproject ?? '')
        ? 'pyproject.toml'
        : /^\[pytest\]/m.test(tox ?? '')
          ? 'tox.ini'
          : /^\[tool:pytest\]/m.test(setupCfg ?? '')
            ? 'setup.cfg'
            : entries.has('conftest.py')
              ? 'conftest.py'
              : (namedBy ?? 'pyproject.toml');
    return { command: ['python3', '-m', 'pytest'], source };
  }
  if (isPython || hasTests) {
    // unittest is in every Python; discovery needs the start folder when tests sit in a folder, and
    // the top as the top-level folder only when that folder is a package (else it is not importable).
    const command = ['python3', '-m', 'unittest', 'discover'];
    if (testsDir) {
      command.push('-s', testsDir);
      if (existsSync(path.join(dir, testsDir, '__init__.py'))) command.push('-t', '.');
    }
    return { command, source: pyproject !== null ? 'pyproject.toml' : (testsDir ?? 'setup.py') };
  }
  return null;
}

/** Whether a tests package's `__init__.py` defines `load_tests` (a link or special file: not read). */
function loadsTests(dir: string, testsDir: string): boolean {
  try {
    return /^def load_tests\(/m.test(readText(dir, `${testsDir}/__init__.py`) ?? '');
  } catch {
    return false;
  }
}

function hasFile(dir: string, name: RegExp): boolean {
  try {
    return readdirSync(dir).some((n) => name.test(n));
  } catch {
    return false;
  }
}

function makeTest(dir: string): { command: string[]; source: string } | null {
  const text = readText(dir, 'Makefile') ?? readText(dir, 'makefile');
  if (text === null || !/^test\s*:/m.test(text)) return null;
  return { command: ['make', 'test'], source: 'Makefile target test' };
}

/** How a recipe line may start and still run only Python's test tools: `pytest`, `python -m pytest`, `$(PYTHON) -m …`. */
const PYTHON_TOOL = /^(python3?|pytest|py\.test|coverage|\$[({]PYTHON[)}])$/;

/**
 * Whether the Makefile's `test` target runs nothing but Python's test tools (after `VAR=value`
 * settings, `@` and `-`), with no prerequisite target (an `install` step would need the network):
 * then `make test` is the project's own way to run its tests, with the flags and environment it
 * sets, and runs as written once the venv setup makes is first on PATH.
 */
export function makeRunsPythonTests(dir: string): boolean {
  const text = readText(dir, 'Makefile') ?? readText(dir, 'makefile');
  const head = text === null ? null : /^test\s*:([^=\n]*)\n((?:\t.*\n?)+)/m.exec(text);
  if (!head || (head[1] ?? '').replace(/#.*/, '').trim() !== '') return false;
  const lines = (head[2] ?? '').split('\n').filter((l) => l.trim() !== '');
  return lines.every((line) => {
    const words = line
      .trim()
      .replace(/^[@+-]+/, '')
      .split(/\s+/);
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=\S*$/.test(words[0] ?? '')) words.shift();
    return PYTHON_TOOL.test(words[0] ?? '');
  });
}

/** Look at a repository's top level (and its package.json, pyproject, Makefile) and say how its tests run. */
export function detectProject(dir: string): ProjectFacts {
  const entries = topEntries(dir);
  const found: { lang: Language; command: string[]; source: string }[] = [];
  const node = nodeTest(dir, entries);
  if (node) found.push({ lang: 'node', ...node });
  const python = pythonTest(dir, entries);
  if (python) found.push({ lang: 'python', ...python });
  if (entries.has('go.mod')) found.push({ lang: 'go', command: ['go', 'test', './...'], source: 'go.mod' });
  if (entries.has('Cargo.toml'))
    found.push({ lang: 'rust', command: ['cargo', 'test'], source: 'Cargo.toml' });
  const make = makeTest(dir);
  if (make) found.push({ lang: 'make', ...make });

  // With several ecosystems, a Makefile's test target is the project's own answer to "how do
  // the tests run"; with one, that ecosystem's runner is.
  const languages = found.map((f) => f.lang);
  const chosen =
    make && new Set(languages.filter((l) => l !== 'make')).size > 1
      ? found.find((f) => f.lang === 'make')
      : found[0];
  return {
    name: configName(path.basename(path.resolve(dir))),
    languages,
    test_command: chosen?.command ?? null,
    test_source: chosen?.source ?? null,
    other_test_commands: found
      .filter((f) => f !== chosen)
      .map(({ command, source }) => ({ command, source })),
    entries,
  };
}

function configName(base: string): string {
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return name || 'my-project';
}

/** True when `dir` exists and is a folder. */
export function isFolder(dir: string): boolean {
  return existsSync(dir) && statSync(dir).isDirectory();
}
