import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import type { ProtectedChange, ProtectedStateEvidence } from '../evidence/types.js';

/**
 * The final-state backstop. The rules judge the calls the tracer saw, by the path each call
 * resolved to; a spelling the tracer or the rules cannot resolve (a directory descriptor, another
 * process's /proc/<pid>/cwd, a hard link made earlier) would walk past them. What no spelling can
 * walk past is the file itself: the harness records the run HOME and the workspace's git
 * configuration and hooks (which the diff does not see) before the agent starts, and again after it
 * exits, and every difference is judged by the same rules as a write (analysis/rules/final-state.ts).
 */

/** One entry as the harness recorded it; the key is its path as the agent saw it. */
type Entry = {
  dev: number;
  ino: number;
  /** 'f' file, 'l' symlink (folders are recorded through their contents). */
  type: 'f' | 'l';
  mode: number;
  /** A file's content hash, a link's target. */
  content: string;
};

export type ProtectedSnapshot = {
  entries: Map<string, Entry>;
  /** Folders not walked to the end (the entry bound was reached or a folder could not be read). */
  incomplete: string[];
};

/** A root to record: a host folder, where the agent sees it, and the parts of it to walk. */
export type ProtectedRoot = { host: string; inside: string; parts?: readonly string[] };

/**
 * Folders of HOME that hold tool caches and stores: big, rewritten by every honest install, and
 * code nothing runs at start-up. The rules call the same places home_scratch.
 */
const SKIP_DIRS = new Set([
  'node_modules',
  '.cache',
  '.npm',
  '.pnpm-store',
  '.yarn',
  '.rustup',
  '.m2',
  '.gradle',
]);
const SKIP_PATHS = [
  '.local/share/pnpm',
  '.local/share/uv',
  '.cargo/registry',
  '.cargo/git',
  'go/pkg/mod',
  '.bun/install/cache',
];
/** Bounds: a run HOME holds a few hundred entries; setup may install more. */
const MAX_ENTRIES = 50_000;
const MAX_HASHED_BYTES = 4 * 1024 * 1024;

/** The roots of a run: its HOME whole, and the git folder of the workspace where the diff cannot look. */
export function protectedRoots(opts: {
  repoDir: string;
  hostHome: string;
  agentHome: string;
}): ProtectedRoot[] {
  return [
    { host: opts.hostHome, inside: opts.agentHome },
    // The agent sees the workspace at the path the harness made it (sandbox facts: repo_dir).
    { host: path.join(opts.repoDir, '.git'), inside: path.join(opts.repoDir, '.git'), parts: GIT_PARTS },
  ];
}

/** git's own files that change what a git command runs: config, hooks, info, submodules', worktrees'. */
const GIT_PARTS = ['config', 'config.worktree', 'hooks', 'info', 'modules', 'worktrees'];
/** A submodule's git folder below modules/: its data, which every honest git command rewrites. */
const GIT_DATA = new Set([
  'objects',
  'refs',
  'logs',
  'lfs',
  'rr-cache',
  'index',
  'HEAD',
  'ORIG_HEAD',
  'FETCH_HEAD',
  'MERGE_HEAD',
  'COMMIT_EDITMSG',
  'packed-refs',
  'description',
  'shallow',
  'gc.log',
]);

/** Records the roots' entries. Never throws: what cannot be read is named in `incomplete`. */
export function snapshotProtected(roots: readonly ProtectedRoot[]): ProtectedSnapshot {
  const snap: ProtectedSnapshot = { entries: new Map(), incomplete: [] };
  for (const root of roots) {
    try {
      if (!lstatSync(root.host).isDirectory()) continue;
    } catch {
      continue; // nothing there yet: whatever appears is a creation
    }
    const skip = root.parts ? (name: string) => GIT_DATA.has(name) : skipInHome(root.inside);
    for (const part of root.parts ?? ['']) {
      walk(path.join(root.host, part), path.posix.join(root.inside, part), snap, skip);
    }
  }
  return snap;
}

const skipInHome =
  (home: string) =>
  (name: string, inside: string): boolean =>
    SKIP_DIRS.has(name) || SKIP_PATHS.includes(path.posix.relative(home, inside));

function walk(
  host: string,
  inside: string,
  snap: ProtectedSnapshot,
  skip: (name: string, inside: string) => boolean,
): void {
  const stack: [string, string][] = [[host, inside]];
  while (stack.length > 0) {
    const [h, i] = stack.pop() as [string, string];
    let st: Stats;
    try {
      st = lstatSync(h);
    } catch {
      continue;
    }
    if (st.isDirectory()) {
      let names: string[];
      try {
        names = readdirSync(h);
      } catch {
        snap.incomplete.push(i);
        continue;
      }
      for (const name of names) {
        const child = path.posix.join(i, name);
        if (!skip(name, child)) stack.push([path.join(h, name), child]);
      }
      continue;
    }
    // Sockets and pipes (an agent's gpg-agent or ssh-agent) hold no code and are not recorded.
    if (!st.isFile() && !st.isSymbolicLink()) continue;
    if (snap.entries.size >= MAX_ENTRIES) {
      snap.incomplete.push(i);
      return;
    }
    snap.entries.set(i, entryOf(h, st));
  }
}

function entryOf(file: string, st: Stats): Entry {
  const base = { dev: Number(st.dev), ino: Number(st.ino), mode: Number(st.mode) & 0o7777 };
  if (st.isSymbolicLink()) {
    try {
      return { ...base, type: 'l', content: readlinkSync(file) };
    } catch {
      return { ...base, type: 'l', content: '?' };
    }
  }
  return { ...base, type: 'f', content: hashFile(file) };
}

/**
 * The content's hash; past the bound, the size and the change time stand for it: the kernel sets
 * ctime on every write, truncate, link or mode change, and no call lets a process set it (utimes
 * sets mtime), so a large file rewritten to the same size with its mtime put back still differs.
 */
function hashFile(file: string): string {
  let fd: number;
  try {
    // A link or pipe swapped in since lstat (by a process the agent left behind) is neither followed nor waited on.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return '?';
  }
  try {
    const st = fstatSync(fd);
    if (st.size > MAX_HASHED_BYTES) return `size:${st.size}:ctime:${st.ctimeMs}`;
    const hash = createHash('sha256');
    const buf = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      hash.update(buf.subarray(0, n));
    }
    return hash.digest('hex');
  } catch {
    return '?';
  } finally {
    closeSync(fd);
  }
}

/** What changed between two snapshots, by path as the agent saw it, in path order. */
export function compareProtected(before: ProtectedSnapshot, after: ProtectedSnapshot): ProtectedChange[] {
  const changes: ProtectedChange[] = [];
  for (const [p, a] of after.entries) {
    const b = before.entries.get(p);
    if (b === undefined) changes.push({ path: p, change: 'created', detail: describe(a) });
    else if (b.type !== a.type)
      changes.push({ path: p, change: 'type', detail: `${describe(b)} → ${describe(a)}` });
    else if (b.content !== a.content)
      changes.push({
        path: p,
        change: a.type === 'l' ? 'link' : 'content',
        detail: `${describe(b)} → ${describe(a)}`,
      });
    else if (b.mode !== a.mode)
      changes.push({ path: p, change: 'mode', detail: `mode ${octal(b.mode)} → ${octal(a.mode)}` });
  }
  for (const [p, b] of before.entries)
    if (!after.entries.has(p)) changes.push({ path: p, change: 'removed', detail: describe(b) });
  return changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

const octal = (mode: number) => mode.toString(8).padStart(4, '0');

function describe(e: Entry): string {
  if (e.type === 'l') return `link to ${e.content}`;
  return `file sha256:${e.content.slice(0, 12)}, mode ${octal(e.mode)}`;
}

/** The regular files of a snapshot by identity: what a rule knows them by whatever path reaches them. */
function identitiesOf(snap: ProtectedSnapshot): ProtectedStateEvidence['files'] {
  return [...snap.entries]
    .filter(([, e]) => e.type === 'f')
    .map(([p, e]) => ({ path: p, dev: e.dev, ino: e.ino }));
}

/** The evidence: the identities recorded before the agent (regular files), and what changed. */
export function protectedEvidence(
  before: ProtectedSnapshot,
  after: ProtectedSnapshot,
): ProtectedStateEvidence {
  const files = identitiesOf(before);
  const incomplete = [...new Set([...before.incomplete, ...after.incomplete])];
  return {
    files,
    changes: compareProtected(before, after),
    ...(incomplete.length > 0 ? { incomplete } : {}),
  };
}

/**
 * The protected state around the agent and its tests: recorded at construction (just before the
 * agent starts), after the agent (before anything else runs), and HOME around the traced test
 * command, which runs the agent's code with the same HOME (not around the untraced run of the
 * baseline's tests: that is setup). `afterAgent` and `afterTests` write protected-state.json.
 */
export class ProtectedStateWatch {
  readonly #roots: ProtectedRoot[];
  /**
   * Around the tests, HOME only: the tests may run in a grading copy put at the workspace's path
   * (test-phase.ts `inFolderAt`), whose .git is the baseline's, not the agent's.
   */
  readonly #homeRoots: ProtectedRoot[];
  readonly #before: ProtectedSnapshot;
  #evidence: ProtectedStateEvidence | null = null;
  #beforeTests: ProtectedSnapshot | null = null;

  constructor(
    opts: { repoDir: string; hostHome: string; agentHome: string },
    private readonly file: string,
    private readonly write: (file: string, value: ProtectedStateEvidence) => void,
  ) {
    this.#roots = protectedRoots(opts);
    this.#homeRoots = this.#roots.filter((r) => r.host === opts.hostHome);
    this.#before = snapshotProtected(this.#roots);
  }

  /** The protected files recorded before the agent, by identity (the live guard matches them as the batch does). */
  get files(): ProtectedStateEvidence['files'] {
    return identitiesOf(this.#before);
  }

  /** The agent has exited. Once; later calls do nothing. */
  afterAgent(): void {
    if (this.#evidence) return;
    this.#evidence = protectedEvidence(this.#before, snapshotProtected(this.#roots));
    this.write(this.file, this.#evidence);
  }

  /** The traced test command is about to start (the first time only). */
  beforeTests(): void {
    if (this.#evidence) this.#beforeTests ??= snapshotProtected(this.#homeRoots);
  }

  /** The tests have run: what changed while they ran is theirs (`test_changes`). */
  afterTests(): void {
    if (!this.#evidence || !this.#beforeTests || this.#evidence.test_changes) return;
    const changes = compareProtected(this.#beforeTests, snapshotProtected(this.#homeRoots));
    this.#evidence = { ...this.#evidence, test_changes: changes };
    this.write(this.file, this.#evidence);
  }
}
