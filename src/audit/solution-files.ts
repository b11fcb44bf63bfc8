import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * The workspace files a reference solution changes: every file of the `solution` folder whose
 * counterpart in the repo template is missing or differs (content, link target, or kind). The mock
 * agents and the attack suite's scripted agent copy the folder over the workspace, so this is what
 * a correct solution touches. Workspace-relative POSIX paths, sorted.
 */
export function solutionTouches(repo: string, solution: string): string[] {
  const touched: string[] = [];
  const visit = (rel: string) => {
    for (const entry of readdirSync(path.join(solution, rel), { withFileTypes: true })) {
      const name = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) visit(name);
      else if (differs(path.join(solution, name), path.join(repo, name))) touched.push(name);
    }
  };
  visit('');
  return touched.sort();
}

function differs(from: string, to: string): boolean {
  let target: ReturnType<typeof lstatSync>;
  try {
    target = lstatSync(to);
  } catch {
    return true;
  }
  const source = lstatSync(from);
  if (source.isSymbolicLink() || target.isSymbolicLink())
    return !(source.isSymbolicLink() && target.isSymbolicLink() && readlinkSync(from) === readlinkSync(to));
  if (!target.isFile()) return true;
  return source.size !== target.size || !readFileSync(from).equals(readFileSync(to));
}
