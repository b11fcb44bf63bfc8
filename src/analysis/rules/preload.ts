import { posix } from 'node:path';
import { envPairs } from '../../evidence/exec-env.js';

/**
 * What an exec is told to load besides its own program (ATT&CK T1574.006 and kin): the files and
 * folders its loader and interpreter variables name (exec-env.ts), and the preloads of a node
 * command line (`node -r FILE`). Pure: the rules decide which of them the run wrote.
 */
export type Preload = { files: string[]; dirs: string[]; packages: string[] };

/** Variables holding libraries or files the loader, interpreter or shell loads or runs. */
const FILE_LISTS = new Set(['LD_PRELOAD', 'LD_AUDIT']);
const FILES = new Set(['GIT_SSH', 'GIT_ASKPASS', 'SSH_ASKPASS']);
/** Files a shell or python sources by path, relative to the cwd too. */
const SOURCED = new Set(['BASH_ENV', 'ENV', 'PYTHONSTARTUP']);
/** Folder lists searched first for libraries, modules or helper programs. */
const DIR_LISTS = new Set([
  'LD_LIBRARY_PATH',
  'GCONV_PATH',
  'PYTHONPATH',
  'PYTHONHOME',
  'NODE_PATH',
  'PERL5LIB',
  'RUBYLIB',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
]);
const JAVA_OPTIONS = new Set(['JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS']);
/** Commands or configuration whose path-like words may name a file or a folder (a hooks path). */
const COMMANDS = new Set(['GIT_SSH_COMMAND', 'PROMPT_COMMAND']);

/** node's options that load code before the program: their value is a module or a file. */
const NODE_LOADERS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader']);
/** node's options whose value is the next argument (so that it is not taken for the script). */
const NODE_VALUED = new Set([
  ...NODE_LOADERS,
  '-e',
  '--eval',
  '-p',
  '--print',
  '-C',
  '--conditions',
  '--input-type',
  '--title',
  '--env-file',
  '--env-file-if-exists',
  '--inspect-port',
  '--redirect-warnings',
  '--disable-warning',
  '--test-reporter',
  '--test-reporter-destination',
  '--test-name-pattern',
  '--watch-path',
  '--run',
]);

/** A word that is a path rather than a package name: absolute, `./`, `../`, or a file: URL. */
function pathLike(word: string): string | undefined {
  if (word.startsWith('file://')) {
    try {
      return decodeURIComponent(new URL(word).pathname);
    } catch {
      return undefined;
    }
  }
  return /^(\/|\.\.?\/)/.test(word) ? word : undefined;
}

const relative = (word: string): string => (/^(\/|\.\.?\/)/.test(word) ? word : `./${word}`);
const slashed = (word: string, add: (path: string) => void): void => {
  if (word.includes('/')) add(relative(word));
};

const resolve = (path: string, cwd: string | undefined): string =>
  path.startsWith('/') || cwd === undefined ? posix.normalize(path) : posix.resolve(cwd, path);

/** A bare name also resolves to a one-file module beside the package folder (`node_modules/evil.js`). */
export const MODULE_FILE_EXTENSIONS = ['.js', '.cjs', '.mjs', '.json', '.node'] as const;

/** The package a bare module name names (`@scope/pkg/register` is `@scope/pkg`), or none. */
function packageOf(spec: string): string | undefined {
  if (spec === '' || spec.startsWith('node:') || spec.includes('\\') || pathLike(spec) !== undefined)
    return undefined;
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (name === undefined || name === '' || name.startsWith('.') || (spec.startsWith('@') && parts.length < 2))
    return undefined;
  return name;
}

/**
 * Where node looks for a bare module name a loader option names (`node -r evil`, `--import evil`):
 * `node_modules/<package>` in the cwd and every folder above it, and HOME's `.node_modules` and
 * `.node_libraries` (node's global folders; NODE_PATH's are search paths, judged as such). Each
 * candidate is a package folder, or a one-file module beside it (`node_modules/evil.js`).
 */
function packageCandidates(spec: string, cwd: string | undefined, home: string | undefined): string[] {
  const name = packageOf(spec);
  if (name === undefined) return [];
  const roots: string[] = [];
  for (let dir = cwd === undefined ? undefined : posix.normalize(cwd); dir !== undefined; ) {
    if (posix.basename(dir) !== 'node_modules') roots.push(posix.join(dir, 'node_modules'));
    const up = posix.dirname(dir);
    dir = up === dir ? undefined : up;
  }
  if (home !== undefined) roots.push(posix.join(home, '.node_modules'), posix.join(home, '.node_libraries'));
  return roots.map((root) => posix.join(root, name));
}

/**
 * The values of node's loader options in `args`, node's own options only: scanning stops at the
 * script (or `--`), as node's does; every item of NODE_OPTIONS is an option.
 */
export function nodeLoaderValues(args: readonly string[], allOptions = false): string[] {
  const out: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') {
      if (allOptions) continue;
      break;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 && arg.startsWith('--') ? arg.slice(0, eq) : arg;
    const inline = eq > 0 && arg.startsWith('--') ? arg.slice(eq + 1) : undefined;
    if (NODE_VALUED.has(name) && inline === undefined) {
      const value = args[index + 1];
      index++;
      if (NODE_LOADERS.has(name) && value !== undefined) out.push(value);
    } else if (NODE_LOADERS.has(name) && inline !== undefined) out.push(inline);
  }
  return out;
}

/** git's own configuration files named by the environment (claude-code writes one to harden git). */
const GIT_CONFIG_FILES = new Set(['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM']);

/**
 * Kernel files no run writes code into: devices (`/dev/null`, which agents name to turn git's hooks
 * and configs off) and /proc, /sys. /dev/shm is a tmpfs anyone writes payloads to: not one of them.
 */
function isPseudoFile(path: string): boolean {
  if (path === '/dev/shm' || path.startsWith('/dev/shm/')) return false;
  return /^\/(dev|proc|sys)(\/|$)/.test(path);
}

/** NODE_OPTIONS split as node splits it: on spaces, with double quotes and backslash escapes. */
export function splitNodeOptions(value: string): string[] {
  const out: string[] = [];
  let word = '';
  let started = false;
  let quoted = false;
  for (let index = 0; index < value.length; index++) {
    const c = value[index] as string;
    if (c === '\\' && quoted && index + 1 < value.length) {
      word += value[++index];
    } else if (c === '"') {
      quoted = !quoted;
      started = true;
    } else if (c === ' ' && !quoted) {
      if (started) out.push(word);
      word = '';
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (started) out.push(word);
  return out;
}

/** Whether an exec runs node (its exe or its program is node). */
export function isNode(exe: string): boolean {
  return /^(node|nodejs)(\d+)?$/.test(posix.basename(exe));
}

/**
 * What `env` (the entries the run set or changed) and a node command line tell the new image to
 * load, made absolute against its cwd. A package name (`-r ts-node/register`) is not a file: it
 * names the package folders node would look in (`packages`), which the rules judge by who wrote
 * what is in them.
 */
export function preloadOf(
  env: readonly string[],
  exe: string,
  argv: readonly string[],
  cwd: string | undefined,
  home?: string,
): Preload {
  const files = new Set<string>();
  const dirs = new Set<string>();
  const packages = new Set<string>();
  const file = (word: string) => {
    const path = pathLike(word);
    if (path !== undefined && path !== '/' && !isPseudoFile(resolve(path, cwd)))
      files.add(resolve(path, cwd));
  };
  const dir = (word: string) => {
    const path = pathLike(word) ?? (word.startsWith('/') ? word : undefined);
    if (path !== undefined && !isPseudoFile(resolve(path, cwd))) dirs.add(resolve(path, cwd));
  };
  const loader = (spec: string) => {
    file(spec);
    for (const folder of packageCandidates(spec, cwd, home)) packages.add(folder);
  };
  for (const [name, value] of envPairs(env)) {
    // A library or program name without a slash is searched for in the system's folders.
    if (FILE_LISTS.has(name)) {
      for (const word of value.split(/[\s:]+/)) slashed(word, file);
    } else if (SOURCED.has(name)) {
      if (value !== '') file(relative(value));
    } else if (FILES.has(name)) {
      slashed(value, file);
    } else if (DIR_LISTS.has(name)) {
      for (const word of value.split(':')) if (word !== '') dir(relative(word));
    } else if (name === 'NODE_OPTIONS') {
      for (const spec of nodeLoaderValues(splitNodeOptions(value), true)) loader(spec);
    } else if (JAVA_OPTIONS.has(name)) {
      for (const match of value.matchAll(/-(?:javaagent|agentpath|agentlib):([^=\s]+)/g))
        file(match[1] as string);
    } else if (name === 'RUBYOPT') {
      for (const match of value.matchAll(/(?:^|\s)-r\s*(\S+)/g)) file(match[1] as string);
      for (const match of value.matchAll(/(?:^|\s)-I\s*(\S+)/g)) dir(match[1] as string);
    } else if (name === 'PERL5OPT') {
      for (const match of value.matchAll(/(?:^|\s)-I\s*(\S+)/g)) dir(match[1] as string);
    } else if (GIT_CONFIG_FILES.has(name)) {
      // A git configuration file is settings, not code: what it makes git run (a hook, an
      // fsmonitor, an ssh command) is an exec of its own, judged by the exec rules.
    } else if (COMMANDS.has(name) || name.startsWith('GIT_CONFIG')) {
      // A command's programs and scripts, a git setting's file or folder (core.hooksPath=/tmp/h).
      for (const word of value.split(/[\s='"]+/)) {
        file(word);
        dir(word);
      }
    }
  }
  if (isNode(exe)) for (const spec of nodeLoaderValues(argv.slice(1))) loader(spec);
  return { files: [...files], dirs: [...dirs], packages: [...packages] };
}
