/**
 * Why `glob` cannot name a workspace path, or null when it can. `kind` words the message for a
 * path glob (a policy that would never match) or for one path (a file setup must find).
 */
export function globProblem(
  glob: string,
  kind: 'glob' | 'path' = 'glob',
): { message: string; fix: string } | null {
  const relative = glob.replace(/^\/+/, '');
  if (glob.startsWith('/') || glob.startsWith('~'))
    return {
      message:
        kind === 'glob'
          ? `'${glob}' is an absolute path, but these globs match paths inside the workspace`
          : `'${glob}' is an absolute path, but this one is read inside the workspace`,
      fix: `write it relative to the workspace root, e.g. '${relative.replace(/^~\/?/, '') || '**'}'`,
    };
  if (glob.split('/').some((part) => part === '..'))
    return {
      message:
        kind === 'glob'
          ? `'${glob}' climbs out of the workspace with '..', so it can never match`
          : `'${glob}' climbs out of the workspace with '..'`,
      fix: "write it relative to the workspace root, without '..'",
    };
  return null;
}
