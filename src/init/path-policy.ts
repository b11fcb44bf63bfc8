import type { Language, ProjectFacts } from './detect-project.js';

/** The path globs `init` writes: what the agent may change, what counts as tests, what it must not touch. */
export type PathPolicy = { allowed: string[]; test: string[]; forbidden: string[] };

/** Source folders by convention; a folder that exists is allowed, nothing else is guessed. */
const SOURCE_FOLDERS = ['src', 'lib', 'app', 'pkg', 'cmd', 'internal', 'docs', 'examples', 'scripts'];
const TEST_FOLDERS = ['test', 'tests', '__tests__', 'spec', 'testdata'];

/** Test files that live beside the code, per ecosystem. */
const TEST_FILES: Record<Language, string[]> = {
  node: ['**/*.test.*', '**/*.spec.*'],
  python: ['**/test_*.py', '**/*_test.py', '**/conftest.py'],
  go: ['**/*_test.go'],
  rust: [],
  make: [],
};

/** Source files at the top level (a Go package or a Python module often lives there). */
const ROOT_SOURCES: Record<Language, string[]> = {
  node: ['*.js', '*.mjs', '*.cjs', '*.ts'],
  python: ['*.py'],
  go: ['*.go'],
  rust: [],
  make: [],
};

/** CI definitions: a change there alters what judges the code, not the code. */
const CI_FILES = [
  '.github/**',
  '.gitlab-ci.yml',
  '.circleci/**',
  '.travis.yml',
  'azure-pipelines.yml',
  'Jenkinsfile',
];
const LOCKFILES = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'go.sum',
  'Cargo.lock',
];

export function pathPolicy(facts: ProjectFacts): PathPolicy {
  const has = (name: string) => facts.entries.has(name);
  const test = [
    ...TEST_FOLDERS.filter(has).map((f) => `${f}/**`),
    ...facts.languages.flatMap((l) => TEST_FILES[l]),
  ];
  const sourceFolders = SOURCE_FOLDERS.filter(has);
  const allowed =
    sourceFolders.length > 0 || facts.languages.length > 0
      ? unique([
          ...sourceFolders.map((f) => `${f}/**`),
          ...facts.languages.flatMap((l) => ROOT_SOURCES[l]),
          ...(facts.languages.includes('go') ? ['**/*.go'] : []),
          ...(facts.languages.includes('python') ? ['**/*.py'] : []),
          ...(facts.languages.includes('rust') ? ['src/**', 'benches/**'] : []),
          ...test,
          '*.md',
        ])
      : ['**'];
  const forbidden = unique([
    ...CI_FILES,
    ...LOCKFILES.filter(has),
    '**/.git/**',
    ...(facts.languages.includes('node') ? ['node_modules/**'] : []),
    ...(has('.venv') ? ['.venv/**'] : []),
    ...(has('vendor') && facts.languages.includes('go') ? ['vendor/**'] : []),
    'agentguard.yaml',
    '.agentguard.yaml',
  ]);
  return { allowed, test: unique(test), forbidden };
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
