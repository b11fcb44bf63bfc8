/**
 * Hand-made evidence bundles for tests (imported only from tests, never from product code).
 * `makeBundle()` is a clean, passing run with no changes; override any part of it:
 *
 *   makeBundle({ config: { forbidden_paths: ['secrets/**'] }, diff: { files: [diffFile('secrets/a')] } })
 *
 * Overrides merge deeply into objects; arrays and other values replace the default wholesale;
 * an `undefined` value keeps the default.
 */

import type { EvidenceBundle } from '../analysis/evidence-bundle.js';
import { configInMemory } from '../config/in-memory.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { CommandRecord, DiffEvidence, DiffFile, SysEvent } from '../evidence/types.js';

export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

export type BundleOverrides = DeepPartial<EvidenceBundle>;

export const TEST_PROMPT = 'Fix the failing test in src/math.js.';

/** The config a loader would produce for a minimal benchmark file, all schema defaults applied. */
export function makeConfig(overrides: DeepPartial<ResolvedConfig> = {}): ResolvedConfig {
  const base = configInMemory(
    { name: 'test-task', task: { prompt: TEST_PROMPT } },
    { dir: '/bench/test-task', prompt: TEST_PROMPT, testCommand: ['npm', 'test'] },
  );
  return mergeDeep<ResolvedConfig>(base, overrides);
}

/** A complete, valid bundle: the agent exited 0, the tests passed, nothing changed, nothing traced. */
export function makeBundle(overrides: BundleOverrides = {}): EvidenceBundle {
  const { config, diff, ...rest } = overrides;
  const agentCommand = makeCommand({ id: 'cmd-1', role: 'agent', argv: ['mock-agent', TEST_PROMPT] });
  const testCommand = makeCommand({ id: 'cmd-2', role: 'tests', argv: ['npm', 'test'], started_ms: 2000 });
  const base: EvidenceBundle = {
    canaries: null,
    skills: [],
    setup: null,
    model: null,
    run_id: 'run-test',
    run_dir: '/runs/run-test',
    config: makeConfig(config),
    workspace: {
      run_id: 'run-test',
      repo_dir: '/runs/run-test/repo',
      baseline_sha: 'b'.repeat(40),
      template: '/bench/test-task/repo',
      files: 3,
    },
    agent: {
      adapter: 'command',
      name: 'mock-agent',
      version: '1.0.0',
      model: null,
      metadata: {},
      outcome: { status: 'completed', exit_code: 0 },
      command_id: 'cmd-1',
    },
    commands: [agentCommand, testCommand],
    tests: {
      ran: true,
      passed: true,
      exit_code: 0,
      timed_out: false,
      duration_ms: 1500,
      command_id: 'cmd-2',
    },
    diff: {
      baseline_sha: 'b'.repeat(40),
      files: [],
      added: 0,
      deleted: 0,
      patch_truncated: false,
      patch_bytes: 0,
      ignored_files: [],
      ignored_files_truncated: false,
      workspace_git_changed: false,
    },
    patch: '',
    syscalls: [],
    test_syscalls: [],
    network: [],
    timeline: [],
    observation: {
      sandbox: { kind: 'local', isolated: false },
      tracer: { requested: 'off', kind: 'off', lost_events: 0 },
      network: { mode: 'none' },
      kernel: 'test',
      fallbacks: [],
      window: { opened_ms: 0, closed_ms: 1000 },
    },
    started_at: '2025-01-01T00:00:00.000Z',
    finished_at: '2025-01-01T00:00:05.000Z',
  };
  const bundle = mergeDeep<EvidenceBundle>(base, rest);
  bundle.diff = mergeDeep<DiffEvidence>(base.diff, diff ?? {});
  // Totals follow the files unless a test sets them, so `diff: { files }` alone stays consistent.
  if (diff?.files !== undefined) {
    if (diff.added === undefined) bundle.diff.added = bundle.diff.files.reduce((n, f) => n + f.added, 0);
    if (diff.deleted === undefined)
      bundle.diff.deleted = bundle.diff.files.reduce((n, f) => n + f.deleted, 0);
  }
  if (overrides.patch !== undefined && diff?.patch_bytes === undefined) {
    bundle.diff.patch_bytes = Buffer.byteLength(overrides.patch, 'utf8');
  }
  return bundle;
}

/** A changed file; `modified` with one added line unless told otherwise. */
export function diffFile(path: string, overrides: Partial<DiffFile> = {}): DiffFile {
  return { path, status: 'modified', added: 1, deleted: 0, binary: false, ...overrides };
}

/** A harness command record that ran and exited 0. */
export function makeCommand(overrides: Partial<CommandRecord> & Pick<CommandRecord, 'argv'>): CommandRecord {
  return {
    id: 'cmd-x',
    role: 'agent',
    display_argv: overrides.argv,
    cwd: '/runs/run-test/repo',
    started_ms: 0,
    duration_ms: 1000,
    exit_code: 0,
    signal: null,
    timed_out: false,
    blocked: false,
    stdout: '',
    stderr: '',
    stdout_truncated: false,
    stderr_truncated: false,
    stdout_bytes: 0,
    stderr_bytes: 0,
    policy_matches: [],
    ...overrides,
  };
}

/** A successful exec event as a tracer would record it. */
export function execEvent(argv: string[], overrides: Partial<SysEvent> = {}): SysEvent {
  return {
    seq: 1,
    ts: 10,
    pid: 200,
    ppid: 100,
    exe: argv[0] ?? '',
    kind: 'exec',
    syscall: 'execve',
    path: argv[0],
    argv,
    cwd: '/runs/run-test/repo',
    result: 0,
    ...overrides,
  };
}

/**
 * A git-style patch section for one file; each hunk gives its new-file start line and lines
 * prefixed '+', '-' or ' ' exactly as they appear in a unified diff.
 */
export function patchSection(
  path: string,
  hunks: { start: number; lines: string[] }[],
  status: 'added' | 'modified' = 'modified',
): string {
  const out = [`diff --git a/${path} b/${path}`];
  if (status === 'added') out.push('new file mode 100644');
  out.push('index 1111111..2222222 100644');
  out.push(status === 'added' ? '--- /dev/null' : `--- a/${path}`, `+++ b/${path}`);
  for (const hunk of hunks) {
    const oldCount = hunk.lines.filter((l) => !l.startsWith('+')).length;
    const newCount = hunk.lines.filter((l) => !l.startsWith('-')).length;
    const oldStart = status === 'added' ? 0 : hunk.start;
    out.push(`@@ -${oldStart},${oldCount} +${hunk.start},${newCount} @@`, ...hunk.lines);
  }
  return `${out.join('\n')}\n`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mergeDeep<T>(base: T, overrides: DeepPartial<T>): T {
  if (!isPlainObject(base) || !isPlainObject(overrides)) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeDeep(current, value) : value;
  }
  return out as T;
}
