import picomatch from 'picomatch';

/** How every path glob is compiled: dot files match, POSIX separators, and `.` matches any byte. */
export const GLOB_OPTIONS = { dot: true, windows: false, flags: 's' } as const;

/** Tests a workspace-relative POSIX path; returns the configured pattern that matched, or null. */
export type PathMatcher = (path: string) => string | null;

/**
 * Compile config globs the way people write them in ignore files:
 * - a pattern without a slash (`*.pem`, `.env`) matches at any depth, as if written `**\/*.pem`;
 *   otherwise `*.pem` would only catch files at the workspace root, which nobody means;
 * - a leading `/` anchors the pattern at the workspace root instead (config path lists refuse it,
 *   since people read `/etc/**` as the host's /etc: see `globProblem` in config/workspace-path.ts);
 * - a pattern also matches everything below a directory it names (`secrets` covers `secrets/a.txt`),
 *   so a forbidden or allowed folder does not need a trailing `/**`;
 * - dot files match (`dot: true`): `.env` and `.github/` are exactly what policies are about;
 * - `nocase` is for names whose meaning does not depend on case (a credential file is one
 *   whatever the case of its name); folders and files a policy places stay case-sensitive;
 * - any byte may be part of a name: picomatch's `*` compiles to `.`, which without the regex `s`
 *   flag stops at a newline, so `src/a\nb.ts` would fall outside `src/**` and dodge every policy.
 */
export function compileGlobs(patterns: readonly string[], options: { nocase?: boolean } = {}): PathMatcher {
  const compiled = patterns.map((pattern) => {
    const tests = expandPattern(pattern).map((glob) =>
      // picomatch's `flags` replaces the `i` that `nocase` would add, so both are given here.
      picomatch(glob, options.nocase ? { ...GLOB_OPTIONS, nocase: true, flags: 'si' } : GLOB_OPTIONS),
    );
    return { pattern, test: (p: string) => tests.some((t) => t(p)) };
  });
  return (path) => {
    const normal = normalizePath(path);
    return compiled.find((c) => c.test(normal))?.pattern ?? null;
  };
}

/** The picomatch globs one config pattern stands for (exported for tests). */
export function expandPattern(pattern: string): string[] {
  let glob = pattern.replace(/^\.\//, '');
  let anchored = false;
  if (glob.startsWith('/')) {
    anchored = true;
    glob = glob.replace(/^\/+/, '');
  }
  glob = glob.replace(/\/+$/, '');
  if (glob === '') return ['**'];
  if (!anchored && !glob.includes('/')) glob = `**/${glob}`;
  return glob.endsWith('/**') ? [glob] : [glob, `${glob}/**`];
}

/** Diff paths are already workspace-relative; tolerate a leading `./` from hand-written evidence. */
export function normalizePath(path: string): string {
  return path.replace(/^(\.\/)+/, '');
}
