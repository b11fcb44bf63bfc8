import type { EvidenceBundle } from '../analysis/evidence-bundle.js';
import { compileGlobs } from './path-glob.js';

/** What a test run writes by itself under test folders: caches and bytecode, never a test. */
const RUN_OUTPUT = compileGlobs([
  '**/__pycache__/**',
  '**/*.py[co]',
  '**/.pytest_cache/**',
  '**/node_modules/**',
  '**/.cache/**',
  '**/coverage/**',
  '.agentguard-tests-*',
]);

const CHANGES = new Set([
  'unlink',
  'unlinkat',
  'rename',
  'renameat',
  'renameat2',
  'link',
  'linkat',
  'symlink',
  'symlinkat',
  'truncate',
]);

export type TestPhaseWrite = { path: string; syscall: string; exe: string; pid: number };

/**
 * Files under test_paths or grader_paths that a process of the test phase changed while the tests
 * ran: code under test rewriting a test the runner has not loaded yet (or the expected output a
 * test compares with) makes the runner report a PASS by name. The tests run at the workspace's
 * path (the grading copy stands there), so the trace names them there. Pure.
 */
export function testFilesChangedByTests(
  bundle: Pick<EvidenceBundle, 'test_syscalls' | 'workspace' | 'config'> & {
    tests?: Pick<EvidenceBundle['tests'], 'grading_copy'>;
  },
): TestPhaseWrite[] {
  const guarded = compileGlobs([...bundle.config.test_paths, ...bundle.config.grader_paths]);
  const graderOnly = compileGlobs(bundle.config.grader_paths);
  // The grading copy's test files as the tests started: a path outside them (and no grader path)
  // did not exist then, so writing it rewrites no test: the tests made it (a snapshot recorded
  // for the first time, tests compiled into an output folder).
  const listed = bundle.tests?.grading_copy?.test_files;
  const atStart = listed ? new Set(listed) : null;
  const root = `${bundle.workspace.repo_dir.replace(/\/+$/, '')}/`;
  const out: TestPhaseWrite[] = [];
  const seen = new Set<string>();
  for (const e of bundle.test_syscalls) {
    if (e.result !== undefined && e.result < 0) continue;
    const changed =
      (e.kind === 'open' && (e.access === 'write' || e.access === 'create')) ||
      (e.kind === 'write-meta' && CHANGES.has(e.syscall));
    if (!changed) continue;
    for (const p of [e.path, e.path2]) {
      if (!p?.startsWith(root)) continue;
      const rel = p.slice(root.length);
      if (seen.has(rel) || RUN_OUTPUT(rel) !== null || guarded(rel) === null) continue;
      if (atStart && !atStart.has(rel) && graderOnly(rel) === null) continue;
      seen.add(rel);
      out.push({ path: rel, syscall: e.syscall, exe: e.exe, pid: e.pid });
    }
  }
  return out;
}
