import { posix } from 'node:path';

/** What a process runs: a short name for rules and the file whose code executes. */
export type ProgramInfo = { name: string; program: string };

type Family = 'shell' | 'python' | 'node' | 'perl' | 'ruby' | 'php';

// Options after which the argument list holds code or a module, not a script file.
const STOP: Record<Family, RegExp> = {
  shell: /^-[a-zA-Z]*c[a-zA-Z]*$/,
  python: /^-[a-zA-Z]*c/,
  node: /^(-e|--eval|-p|--print|-pe|--test)$/,
  perl: /^-[a-zA-Z]*[eE]/,
  ruby: /^-[a-zA-Z]*e/,
  php: /^-r$/,
};

// Options that take the next argument as their value.
const TAKES_VALUE: Record<Family, Set<string>> = {
  shell: new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']),
  python: new Set(['-W', '-X', '--check-hash-based-pycs']),
  node: new Set([
    '-r',
    '--require',
    '--import',
    '--loader',
    '--experimental-loader',
    '-C',
    '--conditions',
    '--env-file',
    '--input-type',
  ]),
  perl: new Set(['-I', '-M', '-m']),
  ruby: new Set(['-I', '-r', '-C']),
  php: new Set(['-c', '-d', '-z']),
};

function familyOf(base: string): Family | undefined {
  if (/^(sh|bash|dash|zsh|ksh|mksh|ash)$/.test(base)) return 'shell';
  if (/^(python|pypy)(\d+(\.\d+)?)?$/.test(base)) return 'python';
  if (base === 'node' || base === 'nodejs') return 'node';
  if (/^perl(\d+(\.\d+)*)?$/.test(base)) return 'perl';
  if (/^ruby(\d+(\.\d+)*)?$/.test(base)) return 'ruby';
  if (/^php(\d+(\.\d+)*)?$/.test(base)) return 'php';
  return undefined;
}

export function baseName(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? p : p.slice(i + 1);
}

const SCRIPT_EXT = /\.(js|mjs|cjs|ts|py|sh|bash|pl|rb|php)$/;
/**
 * A release's version in a script's file name: yarn berry runs as `node
 * .yarn/releases/yarn-4.18.1.cjs` (its yarnPath), and is the same package manager as `yarn`.
 */
const RELEASE_VERSION = /-\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]*)?$/;

/** Where an interpreter takes its program from: a script file, inline text, a module, or its standard input. */
type ProgramSource =
  | { from: 'script'; arg: string | undefined }
  | { from: 'inline' }
  | { from: 'module'; mod: string | undefined }
  | { from: 'stdin' };

function sourceOf(family: Family, argv: readonly string[]): ProgramSource {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return i + 1 < argv.length ? { from: 'script', arg: argv[i + 1] } : { from: 'stdin' };
    if (
      family === 'python' &&
      (arg === '-m' || (arg.startsWith('-m') && arg.length > 2 && !arg.startsWith('--')))
    )
      return { from: 'module', mod: arg === '-m' ? argv[i + 1] : arg.slice(2) };
    if (arg === '-') return { from: 'stdin' };
    if (STOP[family].test(arg)) return { from: 'inline' };
    // `sh -s a b`: the commands come from standard input, the words after are its arguments.
    if (family === 'shell' && /^-[a-zA-Z]*s[a-zA-Z]*$/.test(arg)) return { from: 'stdin' };
    if (arg.startsWith('-') || (family === 'shell' && arg.startsWith('+'))) {
      if (family === 'php' && arg === '-f') return { from: 'script', arg: argv[i + 1] };
      if (TAKES_VALUE[family].has(arg)) i++;
      continue;
    }
    return { from: 'script', arg };
  }
  return { from: 'stdin' };
}

/**
 * Where an exec'd interpreter reads its program: `stdin` for `sh`, `sh -s`, `python3 -`, `node`
 * with no script; undefined for a program that is not an interpreter.
 */
export function programSourceOf(
  exe: string,
  argv: readonly string[],
): 'script' | 'inline' | 'module' | 'stdin' | undefined {
  const family = familyOf(baseName(exe !== '' ? exe : (argv[0] ?? '')));
  return family ? sourceOf(family, argv).from : undefined;
}

/**
 * The code an interpreter was given inline (`sh -c CODE`, `python3 -cCODE`, `node -e CODE`,
 * `perl -e CODE`); undefined when it takes its program from elsewhere or is no interpreter.
 */
export function inlineCodeOf(exe: string, argv: readonly string[]): string | undefined {
  const family = familyOf(baseName(exe !== '' ? exe : (argv[0] ?? '')));
  if (!family || sourceOf(family, argv).from !== 'inline') return undefined;
  const at = argv.findIndex((arg, i) => i > 0 && STOP[family].test(arg));
  const flag = argv[at] as string;
  // An attached value: `-cCODE` (python), `-eCODE` (perl, ruby).
  const letter = family === 'python' ? 'c' : 'e';
  const attached = family === 'shell' || family === 'node' ? -1 : flag.indexOf(letter);
  if (attached > 0 && attached < flag.length - 1) return flag.slice(attached + 1);
  return argv[at + 1];
}

/**
 * The name and program of an exec'd image. For an interpreter running a script the program is the
 * script (resolved against cwd) and the name the script's base name without extension (`node
 * /usr/bin/npm` is `npm`, `node yarn-4.18.1.cjs` is `yarn`); `python -m pip` is named `pip`; code given inline (`sh -c`, `python -c`,
 * `node -e`) or read from standard input leaves the interpreter as both name and program.
 */
export function programOf(exe: string, argv: readonly string[], cwd: string | undefined): ProgramInfo {
  const file = exe !== '' ? exe : (argv[0] ?? '');
  const base = baseName(file);
  const self: ProgramInfo = { name: base, program: file };
  const family = familyOf(base);
  if (!family) return self;
  const source = sourceOf(family, argv);
  if (source.from === 'module') return source.mod ? { name: source.mod, program: file } : self;
  if (source.from === 'script') return script(source.arg, cwd) ?? self;
  return self;
}

function script(arg: string | undefined, cwd: string | undefined): ProgramInfo | undefined {
  if (arg === undefined || arg === '') return undefined;
  const program = arg.startsWith('/') ? posix.normalize(arg) : cwd ? posix.resolve(cwd, arg) : arg;
  const name = baseName(program).replace(SCRIPT_EXT, '').replace(RELEASE_VERSION, '');
  return { name: GENERIC_SCRIPT.test(name) ? (packageOf(program) ?? name) : name, program };
}

/** Entry scripts whose file name says nothing of the program: `…/yarn/1.22.22/lib/cli.js` is yarn. */
const GENERIC_SCRIPT = /^(cli|index|main|bin|run|entry|start)$/;
const VERSION_FOLDER = /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]*)?$/;

/**
 * The package a generic entry script belongs to: the folder a version folder sits in (corepack's
 * cache, `<pm>/<version>/…`), else the package folder below the last `node_modules`.
 */
function packageOf(program: string): string | undefined {
  const parts = program.split('/');
  for (let i = parts.length - 2; i > 0; i--) {
    if (VERSION_FOLDER.test(parts[i] as string)) return parts[i - 1] || undefined;
  }
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  const first = parts[at + 1];
  const pkg = first?.startsWith('@') ? parts[at + 2] : first;
  return pkg !== undefined && at + 2 < parts.length ? pkg : undefined;
}
