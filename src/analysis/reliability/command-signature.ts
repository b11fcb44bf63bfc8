import { posix } from 'node:path';

/**
 * The name of a command node: what was run, at the grain where two runs doing the same thing agree.
 *
 * - Program: the executable's base name (`/usr/bin/git` and `/usr/local/bin/git` are both `git`),
 *   except for programs inside the run's own folders or a temp root, which keep their normalised
 *   path (`$WORKSPACE/scripts/check.sh`): there the location is the identity.
 * - Interpreters (node, python, sh, …): what they run — `python3 -m pytest`, `node $WORKSPACE/x.js`
 *   (the script path resolved against the exec's cwd and normalised), or `sh -c` for inline code,
 *   whose text is dropped because its own child execs appear as their own command nodes.
 * - Other programs: up to two leading subcommand words (`git commit`, `npm run build`), stopping at
 *   the first option, path or value (`=`, `.` or `/` in it). Options, file arguments, messages
 *   and patterns vary between runs without changing what kind of action it was; files touched
 *   show up as file nodes anyway.
 */
export function commandSignature(
  exePath: string,
  argv: readonly string[],
  cwd: string | undefined,
  normalise: (path: string) => string,
): string {
  const program = programName(exePath, argv, normalise);
  const base = posix.basename(program);
  const args = argv.slice(1);
  if (isInterpreter(base)) return [program, ...interpreterTarget(base, args, cwd, normalise)].join(' ');
  const words: string[] = [];
  for (const arg of args) {
    if (words.length === MAX_SUBCOMMANDS || !SUBCOMMAND.test(arg)) break;
    words.push(arg);
  }
  return [program, ...words].join(' ');
}

const MAX_SUBCOMMANDS = 2;
const SUBCOMMAND = /^[A-Za-z][A-Za-z0-9_:+-]{0,39}$/;
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'fish', 'busybox']);
const INTERPRETERS = new Set([
  'node',
  'nodejs',
  'deno',
  'bun',
  'tsx',
  'ts-node',
  'ruby',
  'perl',
  'php',
  'pypy3',
]);

export function isInterpreter(base: string): boolean {
  return SHELLS.has(base) || INTERPRETERS.has(base) || /^python[0-9.]*$/.test(base);
}

function programName(exePath: string, argv: readonly string[], normalise: (path: string) => string): string {
  const raw = exePath !== '' ? exePath : (argv[0] ?? '');
  if (raw === '') return '?';
  if (!raw.includes('/')) return raw;
  const normal = normalise(raw);
  const local = normal.startsWith('$') || /^\/(tmp|var\/tmp|dev\/shm)\//.test(normal);
  return local ? normal : posix.basename(normal);
}

function interpreterTarget(
  base: string,
  args: readonly string[],
  cwd: string | undefined,
  normalise: (path: string) => string,
): string[] {
  const shell = SHELLS.has(base);
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '-m' && !shell) return ['-m', args[index + 1] ?? ''];
    if (shell ? /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg) : ['-c', '-e', '--eval', '-p', '--print'].includes(arg)) {
      return ['-c'];
    }
    if (arg === '--') continue;
    if (arg.startsWith('-')) continue;
    return [scriptName(arg, cwd, normalise)];
  }
  return [];
}

function scriptName(arg: string, cwd: string | undefined, normalise: (path: string) => string): string {
  if (arg.startsWith('/')) return normalise(arg);
  if (cwd?.startsWith('/')) return normalise(posix.join(cwd, arg));
  return posix.normalize(arg);
}
