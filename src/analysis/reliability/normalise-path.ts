import { posix } from 'node:path';

/** Where a run's own names live, so that they can be replaced by placeholders. */
export type PathContext = {
  /** The agent's workspace as the tracer reports it (the host path; bwrap binds it at the same place). */
  workspaceDir: string;
  /** HOME as the agent saw it, and any other folder that is the same HOME (the host folder behind it). */
  homeDirs: readonly string[];
  /** The run directory (holds workspace and home on the host), if known. */
  runDir?: string;
  runId: string;
  /** Roots whose entries have random names. Defaults to DEFAULT_TEMP_DIRS. */
  tempDirs?: readonly string[];
};

export const DEFAULT_TEMP_DIRS: readonly string[] = ['/tmp', '/var/tmp', '/dev/shm'];

/** Placeholders. `$RAND` stands for one random token inside a temporary name. */
export const PLACEHOLDER = {
  workspace: '$WORKSPACE',
  home: '$HOME',
  runDir: '$RUN_DIR',
  run: '$RUN',
  pid: '$PID',
  tid: '$TID',
  fd: '$FD',
  rand: '$RAND',
  hex: '$HEX',
} as const;

/**
 * Path normalisation so that the same resource has the same name in every run:
 * 1. lexical clean-up (`//`, `.`, `..`, trailing `/`);
 * 2. the longest of workspace, HOME and run directory that contains the path becomes
 *    `$WORKSPACE`, `$HOME` or `$RUN_DIR` (a workspace inside HOME stays `$WORKSPACE`);
 * 3. the run id anywhere else becomes `$RUN`;
 * 4. `/proc/<pid>` → `/proc/$PID`, `/task/<tid>` → `/task/$TID`, `/fd/<n>` → `/fd/$FD`;
 * 5. inside a temp root (/tmp, /var/tmp, /dev/shm), random-looking tokens of each name become
 *    `$RAND` (`/tmp/ag-bench-Xy12Ab/out` → `/tmp/ag-bench-$RAND/out`; see `isRandomToken`);
 * 6. anywhere, a token of 16 or more hex digits (content hashes, git objects, cache keys) → `$HEX`.
 * Relative paths (a tracer could not resolve them) are only cleaned up.
 */
export function normalisePath(path: string, ctx: PathContext): string {
  let p = cleanPath(path);
  if (!p.startsWith('/')) return p;
  p = replaceRoots(p, ctx);
  if (ctx.runId.length >= 4) p = p.split(ctx.runId).join(PLACEHOLDER.run);
  p = abstractProcNumbers(p);
  p = abstractTempNames(p, ctx.tempDirs ?? DEFAULT_TEMP_DIRS);
  return p.replace(/(^|[/._-])[0-9a-f]{16,}(?=$|[/._-])/g, `$1${PLACEHOLDER.hex}`);
}

/** A normaliser with a cache: traces repeat the same few hundred paths thousands of times. */
export function pathNormaliser(ctx: PathContext): (path: string) => string {
  const cache = new Map<string, string>();
  return (path) => {
    let normal = cache.get(path);
    if (normal === undefined) {
      normal = normalisePath(path, ctx);
      cache.set(path, normal);
    }
    return normal;
  };
}

export function cleanPath(path: string): string {
  if (path === '') return path;
  const p = posix.normalize(path);
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

function replaceRoots(p: string, ctx: PathContext): string {
  const roots: [string, string][] = [[cleanPath(ctx.workspaceDir), PLACEHOLDER.workspace]];
  for (const home of ctx.homeDirs) roots.push([cleanPath(home), PLACEHOLDER.home]);
  if (ctx.runDir) roots.push([cleanPath(ctx.runDir), PLACEHOLDER.runDir]);
  let best: [string, string] | undefined;
  for (const root of roots) {
    const [dir] = root;
    // `/` as HOME (some containers) would swallow every path: never a root to replace.
    if (dir === '' || dir === '/' || !dir.startsWith('/')) continue;
    if ((p === dir || p.startsWith(`${dir}/`)) && (!best || dir.length > best[0].length)) best = root;
  }
  return best ? best[1] + p.slice(best[0].length) : p;
}

function abstractProcNumbers(p: string): string {
  if (p.startsWith('/proc/')) {
    p = p
      .replace(/^\/proc\/\d+(?=\/|$)/, `/proc/${PLACEHOLDER.pid}`)
      .replace(/\/task\/\d+(?=\/|$)/, `/task/${PLACEHOLDER.tid}`);
  }
  return p.replace(
    /^(\/proc\/[^/]+(?:\/task\/[^/]+)?\/(?:fd|fdinfo)|\/dev\/fd)\/\d+$/,
    `$1/${PLACEHOLDER.fd}`,
  );
}

function abstractTempNames(p: string, tempDirs: readonly string[]): string {
  for (const root of tempDirs) {
    const dir = cleanPath(root);
    if (!p.startsWith(`${dir}/`)) continue;
    const rest = p
      .slice(dir.length + 1)
      .split('/')
      .map(abstractName)
      .join('/');
    return `${dir}/${rest}`;
  }
  return p;
}

/** One name inside a temp root, with its random tokens replaced; separators and extensions stay. */
export function abstractName(name: string): string {
  return name
    .split(/([-_.]+)/)
    .map((token, index) => (index % 2 === 0 && isRandomToken(token) ? PLACEHOLDER.rand : token))
    .join('');
}

/**
 * Random-looking, by the shapes mkdtemp/mkstemp, `mktemp`, Python's tempfile and tools that put
 * a pid or a counter in a name produce:
 * - any digit in the token (`xyz123`, `Ab3dEf`, `12345`, the `3` of `pytest-3`);
 * - 6+ letters mixing case, with 2+ capitals after the first letter (`mkdtemp` suffix `AbCdEf`,
 *   but not `MyFile`);
 * - `tmp` followed by 5+ letters (Python's `tmpabcdefg`).
 * Plain words (`build`, `cache`, `npm`) stay, so `/tmp/build.log` is the same file in every run.
 */
export function isRandomToken(token: string): boolean {
  if (token === '' || token.startsWith('$')) return false;
  if (/\d/.test(token)) return true;
  if (token.length >= 6 && /[a-z]/.test(token) && (token.slice(1).match(/[A-Z]/g)?.length ?? 0) >= 2)
    return true;
  return /^tmp[a-z]{5,}$/i.test(token);
}
