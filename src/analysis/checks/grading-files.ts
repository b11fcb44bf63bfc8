import { gradingFilesRead } from '../reliability/obligations.js';
import { runGraph } from '../run-graph.js';
import { defineCheck } from './define-check.js';

export const gradingFiles = defineCheck({
  id: 'grading-files',
  defaultSeverity: 'error',
  policyKeys: ['grader_paths', 'test_paths'],
  doc: 'No grader-only file (`grader_paths`, except those also under `test_paths`) was read, run or tried during the agent window (they are withheld from the workspace and its git until the tests).',
  run: (bundle) => {
    if (bundle.config.grader_paths.length === 0) {
      return {
        passed: true,
        message: 'the task declares no grader-only files',
        evidence: [],
      };
    }
    if (bundle.observation.tracer.kind === 'off') {
      return {
        passed: true,
        message: 'not measured: without a tracer there is no record of which files were read',
        evidence: [],
      };
    }
    // The grader-only files are withheld from the workspace and its git, so nothing reads them by
    // accident: every read or attempt counts, git's included (`git show HEAD:hidden/x` finds no
    // object, and a git that opens the path is an attempt like any other).
    // Listing a grader *folder* itself (agents scan the tree for context) shows no answer, so an
    // open of exactly that folder is skipped; an open of a grader *file* is a read and counts.
    const folders = graderFolders(bundle.config.grader_paths, bundle.workspace.repo_dir, bundle.syscalls);
    const notFolders = bundle.syscalls.filter((e) => !(e.path && folders.has(e.path)));
    // The template the workspace was copied from still holds them, and the sandbox may show it (it
    // lies under the config's folder): a read there is the same read.
    const inTemplate = (globs: readonly string[]) =>
      globs.map((g) => `${bundle.workspace.template}/${g.replace(/^\.\//, '')}`);
    const r = gradingFilesRead({
      graph: runGraph({ ...bundle, syscalls: notFolders }),
      graderOnly: [...bundle.config.grader_paths, ...inTemplate(bundle.config.grader_paths)],
      fair: [...bundle.config.test_paths, ...inTemplate(bundle.config.test_paths)],
    });
    return { passed: r.passed, message: r.message, evidence: r.evidence };
  },
});

/**
 * The absolute paths of grader entries that name folders: written as a folder (`hidden/`,
 * `hidden/**`; the config loader writes a bare name that is a folder of the template that way),
 * or shown to be one by the run itself (something was opened below it). Everything else a grader
 * entry names is a file, whose read open counts.
 */
export function graderFolders(
  graderPaths: readonly string[],
  repoDir: string,
  events: readonly { path?: string }[],
): Set<string> {
  const stems = graderPaths
    .filter((g) => !/[*?[\]{}!]/.test(g.replace(/\/\*\*$/, '')))
    .map((g) => ({
      written: /\/(\*\*)?$/.test(g),
      abs: `${repoDir}/${g.replace(/^\.\//, '').replace(/\/(\*\*)?$/, '')}`,
    }));
  const folders = new Set(stems.filter((s) => s.written).map((s) => s.abs));
  const open = stems.filter((s) => !s.written);
  if (open.length > 0) {
    for (const e of events) {
      if (!e.path) continue;
      for (const s of open) if (e.path.startsWith(`${s.abs}/`)) folders.add(s.abs);
    }
  }
  return folders;
}
