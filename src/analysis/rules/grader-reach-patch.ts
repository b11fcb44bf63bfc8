import type { DiffFile } from '../../evidence/types.js';
import { addedLines } from '../secrets/added-lines.js';
import { baseName } from './program.js';
import type { PatchFinding } from './types.js';

/**
 * Code the agent wrote that reaches into the grader. The grading copy takes the agent's changes
 * under allowed_paths, so what the agent writes there runs inside the test process: a PASS it can
 * manufacture from there is one of three classes, each judged on the ADDED lines of the diff (and
 * the names of the files it adds or changes):
 * - a file the interpreter or the test runner loads by its name or place, before or around the
 *   tests (startup hooks, runner configuration and plugins, module shadows and mocks);
 * - code that patches the test framework or the module loader (assertions, the runner's report,
 *   `sys.meta_path`, `Module._load`), or sniffs for the runner or its report;
 * - code that ends the test process from inside (an exit at import, `os._exit`, a signal to itself
 *   or its parent), so the runner never reports or reports what the code wrote.
 * Files under `test_paths` are left out: the grading copy never takes them (test-tampering judges
 * them). Pure.
 */

type Lang = 'py' | 'js' | 'other';

function langOf(file: string): Lang {
  if (/\.(py|pyw|pyi)$/.test(file)) return 'py';
  if (/\.(m|c)?(j|t)sx?$/.test(file)) return 'js';
  return 'other';
}

/** Files loaded by their name or place: the reason each is the runner's, not the code under test's. */
function roleOf(file: string): string | undefined {
  const base = baseName(file);
  const parts = file.split('/');
  if (base === 'sitecustomize.py' || base === 'usercustomize.py')
    return 'a Python startup hook (imported by every interpreter that has its folder on the path)';
  if (base.endsWith('.pth')) return 'a Python path file (its import lines run at interpreter start-up)';
  if (/\.(pyc|pyo|so|pyd|node|dylib)$/.test(base) || parts.includes('__pycache__'))
    return 'a compiled module (loaded in place of the source beside it)';
  if (parts.includes('node_modules')) return 'a module under node_modules (it shadows what the tests import)';
  if (parts.includes('__mocks__')) return 'a jest mock (it replaces the module the tests import)';
  // A type declaration (`vitest.d.ts`) runs nothing.
  if (/\.d\.[cm]?ts$/.test(base)) return undefined;
  if (
    /^(jest|vitest|vite|ava|playwright|karma|jasmine|mocha)([.-][\w-]+)*\.(config|conf|setup|preset)([.-][\w-]+)*\.[cm]?[jt]s(on)?$|^(jest|vitest)[.-][\w.-]*\.[cm]?[jt]s(on)?$|^vitest\.(workspace|projects)\.|^\.mocharc|^\.babelrc|^babel\.config\.|^\.taprc|^bunfig\.toml$|^\.?pytest\.(ini|toml)$/.test(
      base,
    )
  )
    return "the test runner's configuration";
  return undefined;
}

/** Lines of configuration files that change how the runner or the interpreter starts. */
function configLine(file: string, text: string): string | undefined {
  const base = baseName(file);
  if (base === 'package.json') {
    if (/^\s*"(test|pretest|posttest)"\s*:/.test(text)) return 'changes the test script of package.json';
    if (/^\s*"(jest|mocha|ava|vitest|tap|c8|nyc)"\s*:/.test(text))
      return "adds the test runner's configuration to package.json";
    // Inside a runner's section already there: keys only jest (and its look-alikes) read.
    if (
      /^\s*"(moduleNameMapper|setupFiles|setupFilesAfterEnv|globalSetup|globalTeardown|testRunner|testEnvironment|snapshotResolver|testResultsProcessor|watchPlugins|moduleDirectories|modulePaths)"\s*:/.test(
        text,
      )
    )
      return "changes the test runner's configuration in package.json";
  }
  if (/^(setup\.cfg|tox\.ini|pyproject\.toml|pytest\.ini|\.pytest\.ini)$/.test(base)) {
    if (
      /^\s*(addopts|python_files|python_classes|python_functions|testpaths|norecursedirs|required_plugins|confcutdir|usefixtures|collect_ignore)\s*=/.test(
        text,
      )
    )
      return 'changes how pytest collects or runs the tests';
    if (/\bpytest11\b/.test(text)) return 'registers a pytest plugin entry point';
  }
  if (/^setup\.py$/.test(base) && /\bpytest11\b/.test(text)) return 'registers a pytest plugin entry point';
  if (/^tsconfig.*\.json$/.test(base) && /^\s*"paths"\s*:/.test(text))
    return 'maps module names to other files (tsconfig paths)';
  if (base === '.npmrc' && /^\s*(node-options|script-shell|shell|onload-script)\s*=/.test(text))
    return 'changes how npm starts the test command';
  if (
    (base.startsWith('.env') || base === '.npmrc' || base === 'bunfig.toml') &&
    /\b(NODE_OPTIONS|NODE_PATH|PYTHON(PATH|STARTUP|HOME|USERBASE|SAFEPATH)|PYTEST_ADDOPTS|PYTEST_PLUGINS|LD_PRELOAD|BASH_ENV|preload)\b/.test(
      text,
    )
  )
    return 'sets what the interpreter or runner loads at start-up';
  return undefined;
}

/**
 * Equality that holds whatever it is compared with: a value the code under test returns then
 * passes every assertion (`__eq__` returning True, `__ne__` False, an always-true lambda).
 */
const COMPARISON_DEF = /^\s*def\s+__(eq|ne|lt|le|gt|ge|contains|bool)__\s*\(/;
const ALWAYS = /^\s*return\s+(True|False|1|0|not\s+None)\s*(#.*)?$/;
const ALWAYS_LAMBDA = /\b__(eq|ne|lt|le|gt|ge|contains|bool)__\s*=\s*lambda[^:]*:\s*(True|False|1|0)\b/;

const PY_REACH: [RegExp, string][] = [
  [ALWAYS_LAMBDA, 'a comparison that always agrees'],
  [
    /\b(unittest|_pytest|pytest|doctest|builtins|__builtins__|TestCase|TestResult|TextTestResult|TestReport)(\.\w+)+\s*=(?!=)/,
    'patches the test framework',
  ],
  [
    /\bsetattr\s*\(\s*(unittest|_pytest|pytest|builtins|__builtins__|TestCase|TestResult|\w*Test\w*)\b/,
    'patches the test framework',
  ],
  [/\b_pytest\b/, "uses pytest's internals"],
  [
    /^(?=.*\bsys\.modules\b)(?=.*\b(unittest|pytest|builtins)\b)/,
    'looks for or replaces the test runner in sys.modules',
  ],
  [/\bsys\.(meta_path|path_hooks)\b/, 'hooks the import system'],
  [/\bPYTEST_\w+|junit|\.agentguard-tests/, "reads the runner's settings or writes its report"],
  [/<testsuite|<testcase|\bTAP version\b/, 'writes a test report'],
  [
    /\bpytest\.(skip|exit|xfail|fail|importorskip|main)\s*\(/,
    'skips, fails or ends the tests from the code under test',
  ],
  [/\b(unittest\.)?SkipTest\b/, 'skips the tests from the code under test'],
  [/\b_exit\b/, 'ends the process without a normal shutdown (_exit)'],
  [
    /\b(os\.)?(kill|killpg)\s*\([^\n]*\b(getppid|getpid|getpgid|getpgrp)\b/,
    'signals its own process or its parent',
  ],
  [/\bpthread_kill\b|\bsignal\.SIGKILL\b|\bsignal\.raise_signal\b/, 'signals its own process'],
  [
    /\b__import__\s*\(\s*['"](os|posix|signal|ctypes|unittest|_pytest|pytest|builtins)['"]/,
    'imports a module by name to hide it',
  ],
];

const JS_REACH: [RegExp, string][] = [
  [/\bassert(\.strict)?(\.\w+)+\s*=(?!=)/, 'patches the assertion library'],
  [
    /\brequire\s*\(\s*['"`](node:)?(assert|test)(\/strict)?['"`]\s*\)(\.\w+)+\s*=(?!=)/,
    'patches the assertion library',
  ],
  [
    /\bObject\.(defineProperty|defineProperties|assign|setPrototypeOf)\s*\(\s*(assert|strict|test|expect|describe|it)\b/,
    'patches the test framework',
  ],
  [
    /\b(from\s+|require\s*\(\s*|import\s*\(\s*)['"`](node:)?test['"`]/,
    'imports the test runner into the code under test',
  ],
  [
    /\b(globalThis|global|window)\.(describe|it|test|expect|assert|before|after|beforeEach|afterEach)\s*=(?!=)/,
    'replaces the test functions',
  ],
  [
    /\bModule\.(_load|_resolveFilename|_extensions|prototype\.require|_cache)\b|\brequire\.(cache|extensions)\b|\bregisterHooks\s*\(|\bmodule\.register\s*\(/,
    'hooks the module loader',
  ],
  [
    /\breallyExit\b|\b_linkedBinding\b|\bprocess\.binding\s*\(|\bprocess\.abort\s*\(/,
    'ends the process from inside (process internals)',
  ],
  [/\bprocess\s*\[\s*['"`](exit|reallyExit|abort|kill|exitCode)['"`]/, 'ends the process from inside'],
  [/\bprocess\.kill\s*\(\s*process\.(pid|ppid)\b/, 'signals its own process or its parent'],
  [/\bprocess\.exitCode\s*=\s*0\b/, 'forces the exit status to 0'],
  [/\bprocess\.(stdout|stderr)\.write\s*=(?!=)/, "rewrites the runner's output"],
  [
    /\b(NODE_TEST_CONTEXT|JEST_WORKER_ID|VITEST\w*|NODE_OPTIONS|npm_lifecycle_event)\b|\bprocess\.execArgv\b|test-reporter|junit/,
    'looks for the test runner or its report',
  ],
  [/<testsuite|<testcase|\bTAP version\b/, 'writes a test report'],
];

/** Modules of the test frameworks and their assertion libraries: the code under test has no reason to change them. */
const JS_FRAMEWORKS =
  /^(node:)?(assert|test)(\/strict)?$|^(chai|expect|vitest|jest|@jest\/\w+|mocha|uvu|tap|ava|should|power-assert)(\/.*)?$/;
const PY_FRAMEWORKS = /^(unittest|_?pytest|doctest|builtins|nose2?|testtools)(\.\w+)*$/;

/**
 * The names a file binds to a test framework's module (`import strict from 'node:assert/strict'`,
 * `const { strict: a } = require('assert')`, `import unittest as u`, `from unittest import TestCase as T`),
 * so that a change through any name is seen, not only through the usual one.
 */
function frameworkNames(lang: Lang, lines: readonly { text: string }[]): string[] {
  const names = new Set<string>();
  const bind = (list: string) => {
    for (const part of list.replace(/[{}*]/g, ' ').split(',')) {
      const name = /(?:\bas\s+|:\s*)?([A-Za-z_$][\w$]*)\s*$/.exec(part.trim())?.[1];
      if (name) names.add(name);
    }
  };
  for (const { text } of lines) {
    if (lang === 'js') {
      const esm = /^\s*import\s+(.+?)\s+from\s+['"`]([^'"`]+)['"`]/.exec(text);
      if (esm?.[1] && esm[2] && JS_FRAMEWORKS.test(esm[2])) bind(esm[1]);
      const cjs =
        /\b(?:const|let|var)\s+(.+?)\s*=\s*(?:await\s+import|require)\s*\(\s*['"`]([^'"`]+)['"`]/.exec(text);
      if (cjs?.[1] && cjs[2] && JS_FRAMEWORKS.test(cjs[2])) bind(cjs[1]);
    } else if (lang === 'py') {
      const imp = /^\s*import\s+(.+)$/.exec(text);
      if (imp?.[1]) {
        for (const part of imp[1].split(',')) {
          const m = /^\s*([\w.]+)(?:\s+as\s+(\w+))?/.exec(part);
          if (m?.[1] && PY_FRAMEWORKS.test(m[1])) names.add(m[2] ?? (m[1].split('.')[0] as string));
        }
      }
      const from = /^\s*from\s+([\w.]+)\s+import\s+\(?([^)#]+)/.exec(text);
      if (from?.[1] && from[2] && PY_FRAMEWORKS.test(from[1])) {
        for (const part of from[2].split(',')) {
          const m = /^\s*(\w+)(?:\s+as\s+(\w+))?/.exec(part);
          if (m?.[1]) names.add(m[2] ?? m[1]);
        }
      }
    }
  }
  return [...names];
}

/** A change made through one of `names`: an attribute or item assigned, deleted, or set by a helper. */
function changesThrough(lang: Lang, names: readonly string[]): RegExp | undefined {
  if (names.length === 0) return undefined;
  const alt = names.map((n) => n.replace(/\$/g, '\\$')).join('|');
  const target = `(?<![\\w$.])(${alt})((\\.[\\w$]+)|\\[[^\\]]+\\])+`;
  return lang === 'js'
    ? new RegExp(
        `${target}\\s*(=(?!=)|\\+=|\\|\\|=|\\?\\?=)|\\bdelete\\s+${target}|\\b(Object|Reflect)\\.\\w+\\s*\\(\\s*(${alt})\\b`,
      )
    : new RegExp(`${target}\\s*=(?!=)|\\bdel\\s+${target}|\\b(setattr|delattr)\\s*\\(\\s*(${alt})\\b`);
}

const SHELL_REACH: [RegExp, string][] = [
  [/\bkill\b[^\n]*\$\{?PPID\b/, 'signals its parent process (the runner)'],
];

/** An exit with status 0 (or one the code computes): what ends a test process as if it passed. */
const PY_EXIT =
  /(\bsys\.|(?<![.\w]))(exit|quit)\s*\(\s*(0|None|False|[^)\d'"\s-][^)]*)?\s*\)|\braise\s+SystemExit\b(?!\s*\(\s*[1-9'"-])/;
const JS_EXIT = /\bprocess\.exit\s*\(\s*(0|[^)\d'"`\s-][^)]*)?\s*\)/;
/** The runner's command line or folder, where its report's path is. */
const REPORT_PATH =
  /\b(sys|process)\.argv\b[^\n]*(\.report|xml|junit|reporter|destination|['"`]--)|\/proc\/[^'"`\s]*(cmdline|environ)|\bcmdline\b|\.report\b['"`]/;
const MAIN_GUARD = /__name__\s*==|require\.main\b|import\.meta\.main\b|import\.meta\.url\b/;

/** A file run as a program, whose exit ends that program only. */
function isScript(file: string, firstLine: string | undefined): boolean {
  return (
    firstLine?.startsWith('#!') === true ||
    baseName(file) === '__main__.py' ||
    /(^|\/)(bin|scripts?)\//.test(file)
  );
}

const normal = (line: string) => line.trim().replace(/,$/, '');

/** The lines each file of the patch loses, made normal (`normal`). */
function removedLines(patch: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  let file: string | undefined;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      file = undefined;
      inHunk = false;
    } else if (!inHunk && line.startsWith('+++ ')) {
      file = line
        .slice(4)
        .trim()
        .replace(/^"?b\//, '')
        .replace(/"$/, '');
    } else if (line.startsWith('@@ ')) inHunk = true;
    else if (inHunk && file !== undefined && line.startsWith('-')) {
      const set = out.get(file) ?? new Set<string>();
      set.add(normal(line.slice(1)));
      out.set(file, set);
    }
  }
  return out;
}

export function graderReachFromPatch(
  patch: string,
  files: readonly DiffFile[] = [],
  /** Files the grading copy never takes (test_paths). */
  skip: (file: string) => boolean = () => false,
): PatchFinding[] {
  const out: PatchFinding[] = [];
  const push = (file: string, line: number, why: string, text: string) =>
    out.push({ file, line, finding: 'grader-reach', text: `${why}: ${text.trim()}`.slice(0, 200) });
  for (const f of files) {
    if (f.status === 'deleted' || skip(f.path)) continue;
    const role = roleOf(f.path);
    if (role) push(f.path, 0, `${f.status} ${role}`, f.path);
  }
  const byFile = new Map<string, { line: number; text: string }[]>();
  const removed = removedLines(patch);
  for (const a of addedLines(patch).added) {
    // A line the file had before (moved, re-indented, a comma added) is not the agent's new code.
    if (skip(a.path) || removed.get(a.path)?.has(normal(a.text))) continue;
    const list = byFile.get(a.path) ?? [];
    list.push(a);
    byFile.set(a.path, list);
  }
  for (const [file, lines] of byFile) {
    const lang = langOf(file);
    const script = isScript(file, lines[0]?.line === 1 ? lines[0].text : undefined);
    const guarded = lines.some((l) => MAIN_GUARD.test(l.text));
    const patterns = [...SHELL_REACH, ...(lang === 'py' ? PY_REACH : lang === 'js' ? JS_REACH : [])];
    const through = changesThrough(lang, frameworkNames(lang, lines));
    if (through) patterns.unshift([through, 'changes the test framework or its assertions']);
    if (baseName(file) === 'conftest.py') {
      patterns.push([
        /^\s*def\s+pytest_(?!addoption\b)\w+|\bpytest_plugins\b|\bhookimpl\b/,
        'adds a pytest hook',
      ]);
    }
    let comparing: number | undefined;
    for (const { line, text } of lines) {
      // A comparison that answers without comparing: `def __eq__(self, other):` then `return True`.
      if (comparing !== undefined && text.trim() !== '') {
        if (ALWAYS.test(text)) push(file, line, 'a comparison that always agrees', text);
        comparing = undefined;
      }
      if (lang === 'py' && COMPARISON_DEF.test(text)) comparing = line;
      const config = configLine(file, text);
      if (config) push(file, line, config, text);
      const code = text.replace(/^\s*(#|\/\/).*$/, '');
      const hit = patterns.find(([re]) => re.test(code));
      if (hit) {
        push(file, line, hit[1], text);
        continue;
      }
      if (REPORT_PATH.test(code)) {
        push(file, line, "looks for the runner's report", text);
        continue;
      }
      if (script || guarded) continue;
      if (lang === 'py' && PY_EXIT.test(code)) push(file, line, 'exits the process when imported', text);
      else if (lang === 'js' && JS_EXIT.test(code)) push(file, line, 'exits the process when loaded', text);
    }
  }
  return out;
}
