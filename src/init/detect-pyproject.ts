/** The extras and groups init installs with the project: the ones tests are declared in (uv syncs `dev`). */
const TEST_GROUPS = ['dev', 'test', 'tests', 'testing'];

const normal = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/**
 * What a pyproject.toml declares for setup to install, read from its tables' headers and keys (init
 * needs no more than that; setup reads the file with a TOML parser): whether it names dependencies
 * (PEP 621's `[project].dependencies`, poetry's `[tool.poetry.dependencies]`), and which of its
 * extras, dependency groups, poetry groups and uv's dev-dependencies hold the test tools.
 */
export function pyprojectDependencies(text: string): { declares: boolean; groups: string[] } {
  let table = '';
  let declares = false;
  const groups = new Set<string>();
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^[\]]+)\]\s*(#.*)?$/.exec(line);
    if (header) {
      table = (header[1] as string).replace(/\s|"/g, '');
      const poetryGroup = /^tool\.poetry\.group\.([^.]+)\.dependencies$/.exec(table);
      if (poetryGroup) groups.add(poetryGroup[1] as string);
      if (table === 'tool.poetry.dev-dependencies') groups.add('dev');
      continue;
    }
    if (/^\s*\[\[/.test(line)) {
      table = '';
      continue;
    }
    const key = /^\s*"?([A-Za-z0-9][\w.-]*)"?\s*=\s*(.*)$/.exec(line);
    if (!key) continue;
    const [, name, value] = key as unknown as [string, string, string];
    if (table === 'project' && name === 'dependencies' && !/^\[\s*\]/.test(value)) declares = true;
    if (table === 'tool.poetry.dependencies' && normal(name) !== 'python') declares = true;
    if (table === 'project.optional-dependencies' || table === 'dependency-groups') groups.add(name);
    if (table === 'tool.uv' && name === 'dev-dependencies') groups.add('dev');
  }
  const chosen = [...groups].filter((g) => TEST_GROUPS.includes(normal(g))).sort();
  return { declares: declares || chosen.length > 0, groups: chosen };
}
