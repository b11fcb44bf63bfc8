import { statSync } from 'node:fs';
import path from 'node:path';
import { manifestOf, type SetupConfig } from './setup-schema.js';

type Issue = (field: string, message: string, fix: string) => void;

function isKind(p: string, kind: 'file' | 'folder'): boolean {
  try {
    const st = statSync(p);
    return kind === 'file' ? st.isFile() : st.isDirectory();
  } catch {
    return false;
  }
}

/**
 * `setup` with each cache folder made absolute (relative to the config), after checking what can be
 * checked before a run: the cache folders exist, and the lockfiles and requirements files are in the
 * template (the installs run before setup_command, so nothing else could have made them).
 */
export function resolveSetup(
  setup: SetupConfig,
  where: {
    configDir: string /** null when the template itself is missing (reported already). */;
    repo: string | null;
  },
  issue: Issue,
): SetupConfig {
  const dependencies = setup.dependencies.map((given, index) => {
    const field = `setup.dependencies[${index}]`;
    // A pip entry that names no pyproject installs requirements.txt.
    const dep =
      given.manager === 'pip' && given.pyproject === undefined && given.requirements === undefined
        ? { ...given, requirements: 'requirements.txt' }
        : given;
    const manifest = manifestOf(dep);
    const files: { key: string; rel: string }[] = [manifest];
    if (dep.manager === 'pip' && dep.lockfile !== undefined)
      files.push({ key: 'lockfile', rel: dep.lockfile });
    for (const file of files)
      if (where.repo !== null && !isKind(path.join(where.repo, file.rel), 'file'))
        issue(
          `${field}.${file.key}`,
          `${file.rel} is not a file in the template ${where.repo}`,
          `commit the ${file.key === 'requirements' ? 'requirements file' : file.rel.split('/').at(-1)} into the task repository, or correct the path (relative to the workspace)`,
        );
    if (dep.cache === undefined) return dep;
    const cache = path.resolve(where.configDir, dep.cache);
    if (!isKind(cache, 'folder'))
      issue(
        `${field}.cache`,
        `folder ${cache} does not exist`,
        dep.manager !== 'pip'
          ? `fill it with \`npm cache add <package> --cache ${cache}\`, or correct the path (relative to the config)`
          : `put the wheels there (\`pip download -d ${cache} ${dep.pyproject ? '.' : `-r ${manifest.rel}`}\`), or correct the path (relative to the config)`,
      );
    return { ...dep, cache };
  });
  return { dependencies };
}
