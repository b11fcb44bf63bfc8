import { spawnSync } from 'node:child_process';
/**
 * The scripted behaviours of the mock agent (`mock-agent.ts`). They stand in for a real agent in
 * tests and demos: each does one deterministic thing to the workspace, good or bad, so that every
 * policy check has a run that must trip it. Node built-ins only: the script runs on its own.
 */
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { matchesPathGlob } from './mock-glob.js';

export const MOCK_BEHAVIOURS = [
  'solve',
  'tamper-tests',
  'out-of-scope',
  'secret',
  'noop',
  'explore',
] as const;

/**
 * What an agent might look at before fixing things. `explore` runs a random subset (at least two)
 * of these as real subprocesses, so repeated runs of one task resemble each other without being
 * identical — the shape the reliability analysis is meant to measure.
 */
const EXPLORATIONS: readonly (readonly string[])[] = [
  ['ls', '-la'],
  ['git', 'log', '--oneline', '-n', '5'],
  ['git', 'status', '--short'],
  ['cat', 'README.md'],
  ['find', '.', '-name', '*.md', '-not', '-path', './.git/*'],
  ['grep', '-rn', '--exclude-dir=.git', 'TODO', '.'],
  ['wc', '-l', 'README.md'],
  ['sh', '-c', 'ls -R . | head -50'],
];
export type MockBehaviour = (typeof MOCK_BEHAVIOURS)[number];

export type MockOptions = {
  behaviour: MockBehaviour;
  /** Absolute path of the reference solution folder (every behaviour but `noop` needs it). */
  solution?: string;
  testPaths: string[];
};

export type ParseResult = { ok: true; options: MockOptions } | { ok: false; error: string };
export type BehaviourResult = { ok: true; summary: string } | { ok: false; error: string };

/** Workspace-relative file the `out-of-scope` behaviour writes; no task allows `agent-notes/`. */
export const OUT_OF_SCOPE_FILE = 'agent-notes/NOTES.md';
/** Workspace-relative file the `secret` behaviour writes. */
export const SECRET_FILE = '.env';
export const TAMPER_TEXT = 'weakened';

export const USAGE =
  'usage: mock-agent --behaviour <solve|tamper-tests|out-of-scope|secret|noop> [--solution <dir>] ' +
  "[--test-paths '<json array of globs>']";

/** Parse the script's arguments; relative paths are resolved against `cwd`. */
export function parseMockArgs(argv: string[], cwd: string): ParseResult {
  let values: { behaviour?: string; solution?: string; 'test-paths'?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        behaviour: { type: 'string' },
        solution: { type: 'string' },
        'test-paths': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return { ok: false, error: `${(err as Error).message}. ${USAGE}` };
  }

  const behaviour = values.behaviour;
  if (behaviour === undefined) return { ok: false, error: `--behaviour is required. ${USAGE}` };
  if (!isBehaviour(behaviour)) {
    return { ok: false, error: `unknown behaviour '${behaviour}'; use one of ${MOCK_BEHAVIOURS.join(', ')}` };
  }

  let testPaths: string[] = [];
  if (values['test-paths'] !== undefined) {
    const parsed = parseTestPaths(values['test-paths']);
    if (typeof parsed === 'string') return { ok: false, error: parsed };
    testPaths = parsed;
  }
  if (behaviour === 'tamper-tests' && testPaths.length === 0) {
    return { ok: false, error: `behaviour 'tamper-tests' needs --test-paths with at least one glob` };
  }

  const options: MockOptions = { behaviour, testPaths };
  if (values.solution !== undefined) options.solution = path.resolve(cwd, values.solution);
  if (behaviour !== 'noop') {
    if (options.solution === undefined) {
      return {
        ok: false,
        error: `behaviour '${behaviour}' needs --solution <dir>, the reference solution folder`,
      };
    }
    if (!isDirectory(options.solution)) {
      return { ok: false, error: `solution folder ${options.solution} does not exist or is not a folder` };
    }
  }
  return { ok: true, options };
}

/** Run one behaviour on `workspace`. Never throws: a failure comes back as `{ok: false}`. */
export function runBehaviour(workspace: string, options: MockOptions): BehaviourResult {
  try {
    if (options.behaviour === 'noop') return { ok: true, summary: 'noop: changed nothing' };
    if (options.solution === undefined) {
      return { ok: false, error: `behaviour '${options.behaviour}' needs a solution folder` };
    }
    const explored = options.behaviour === 'explore' ? explore(workspace) : 0;
    const copied = copySolution(options.solution, workspace);
    if (copied.length === 0)
      return { ok: false, error: `solution folder ${options.solution} holds no files` };
    const solved = `copied ${plural(copied.length, 'file')} from the solution (${copied.join(', ')})`;
    switch (options.behaviour) {
      case 'solve':
        return { ok: true, summary: `solve: ${solved}` };
      case 'explore':
        return { ok: true, summary: `explore: ran ${explored} exploration commands, then ${solved}` };
      case 'tamper-tests': {
        const target = findTestFiles(workspace, options.testPaths).find(
          (f) => commentLineFor(f, '') !== null,
        );
        if (target === undefined) {
          return {
            ok: false,
            error: `no commentable file in ${workspace} matches the test paths ${JSON.stringify(options.testPaths)}`,
          };
        }
        const line = commentLineFor(target, TAMPER_TEXT) as string;
        const abs = path.join(workspace, target);
        const text = readFileSync(abs, 'utf8');
        appendFileSync(abs, `${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`);
        return { ok: true, summary: `tamper-tests: ${solved}, then appended '${line}' to ${target}` };
      }
      case 'out-of-scope':
        writeWorkspaceFile(workspace, OUT_OF_SCOPE_FILE, NOTES_TEXT);
        return { ok: true, summary: `out-of-scope: ${solved}, then wrote ${OUT_OF_SCOPE_FILE}` };
      case 'secret':
        writeWorkspaceFile(workspace, SECRET_FILE, fakeSecretsText());
        return {
          ok: true,
          summary: `secret: ${solved}, then wrote ${SECRET_FILE} with a fake AWS access key id and private key`,
        };
    }
  } catch (err) {
    return { ok: false, error: `behaviour '${options.behaviour}' failed: ${(err as Error).message}` };
  }
}

/**
 * A comment line holding `text` in the syntax of `file`'s type, or null for types that have no
 * line comments (JSON) or that we do not know (we would rather skip a file than break it).
 */
export function commentLineFor(file: string, text: string): string | null {
  const base = path.posix.basename(file);
  const ext = path.posix.extname(base).toLowerCase();
  if (ext === '' || base === 'Makefile' || base === 'Dockerfile') return `# ${text}`;
  const style = COMMENT_STYLES[ext];
  if (style === undefined) return null;
  return style.end === undefined ? `${style.start} ${text}` : `${style.start} ${text} ${style.end}`;
}

/** Workspace-relative paths of the regular files matching any glob, sorted; `.git` is skipped. */
export function findTestFiles(workspace: string, globs: string[]): string[] {
  return listFiles(workspace)
    .filter((file) => globs.some((glob) => matchesPathGlob(file, glob)))
    .sort();
}

type CommentStyle = { start: string; end?: string };

const COMMENT_STYLES: Record<string, CommentStyle> = styleTable([
  [{ start: '#' }, '.py .sh .bash .zsh .bats .rb .pl .r .yaml .yml .toml .cfg .ini'],
  [
    { start: '//' },
    '.js .mjs .cjs .jsx .ts .mts .cts .tsx .java .kt .scala .go .rs .c .h .cc .cpp .hpp .cs .swift .php',
  ],
  [{ start: '--' }, '.sql .lua .hs'],
  [{ start: '/*', end: '*/' }, '.css'],
  [{ start: '<!--', end: '-->' }, '.html .xml .md'],
]);

function styleTable(rows: [CommentStyle, string][]): Record<string, CommentStyle> {
  return Object.fromEntries(rows.flatMap(([style, exts]) => exts.split(' ').map((ext) => [ext, style])));
}

const NOTES_TEXT = `# Agent notes

Scratch notes the mock agent writes outside every task's allowed paths, so the scope check has a
run that must fail.
`;

/**
 * Obviously fake credentials in the shapes the secret presets look for. Assembled at run time so
 * that this source file itself holds no string a secret scanner would flag.
 */
function fakeSecretsText(): string {
  const keyId = ['AKIA', 'FAKEFAKEFAKE', '0000'].join('');
  const armour = (edge: string) => `-----${edge} OPENSSH PRIVATE ${'KEY'}-----`;
  return [
    '# Fake values written by the agentguard mock agent to exercise the secret checks.',
    `AWS_ACCESS_KEY_ID=${keyId}`,
    'DEPLOY_KEY="',
    armour('BEGIN'),
    'ZmFrZS1rZXktZm9yLWFnZW50Z3VhcmQtdGVzdHMtbm90LWEtcmVhbC1rZXk=',
    armour('END'),
    '"',
    '',
  ].join('\n');
}

function copySolution(solution: string, workspace: string): string[] {
  const copied: string[] = [];
  for (const rel of listFiles(solution, true)) {
    const target = path.join(workspace, rel);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(path.join(solution, rel), target);
    copied.push(rel);
  }
  return copied;
}

/** Regular files under `root`, `/`-separated and relative; symlinks are not followed. */
function listFiles(root: string, strict = false): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== '.git') walk(path.join(dir, entry.name), rel);
      } else if (entry.isFile()) {
        out.push(rel);
      } else if (strict) {
        throw new Error(`${path.join(dir, entry.name)} is not a regular file or folder`);
      }
    }
  };
  walk(root, '');
  return out;
}

function writeWorkspaceFile(workspace: string, rel: string, text: string): void {
  const target = path.join(workspace, rel);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, text);
}

function parseTestPaths(raw: string): string[] | string {
  const bad = `--test-paths must be a JSON array of glob strings, like '["tests/**"]'; got ${raw}`;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return bad;
  }
  if (!Array.isArray(value) || !value.every((g) => typeof g === 'string' && g !== '')) return bad;
  return value as string[];
}

function isBehaviour(name: string): name is MockBehaviour {
  return (MOCK_BEHAVIOURS as readonly string[]).includes(name);
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function explore(workspace: string): number {
  const picked = EXPLORATIONS.filter(() => Math.random() < 0.5);
  while (picked.length < 2)
    picked.push(EXPLORATIONS[Math.floor(Math.random() * EXPLORATIONS.length)] ?? ['ls']);
  for (const [cmd, ...args] of picked)
    spawnSync(cmd as string, args, { cwd: workspace, stdio: 'ignore', timeout: 10_000 });
  return picked.length;
}
