import { spawnSync } from 'node:child_process';
import { ConfigError } from '../errors.js';

/**
 * Where the workflow `init --ci` writes takes agentguard's action (action.yml) from. Never a name
 * that does not exist: the ref the user gave; else the GitHub repository this agentguard was
 * cloned from, at the commit it runs; else two repository variables the user sets, checked out
 * beside the project and used as a local action (a `uses:` cannot read a variable).
 */
export type ActionSource =
  | { kind: 'given'; ref: string }
  | { kind: 'origin'; ref: string; repository: string; commit: string }
  | { kind: 'variables' };

/** The repository variables the workflow reads when it has no ref. */
export const ACTION_VARIABLES = { repository: 'AGENTGUARD_REPOSITORY', ref: 'AGENTGUARD_REF' } as const;
/** Where the workflow checks agentguard out to use it as a local action. */
export const LOCAL_ACTION_PATH = '.agentguard-action';

/** `owner/repo@ref` or `owner/repo/path@ref`, as GitHub's `uses:` takes a remote action. */
const ACTION_REF = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+(\/[A-Za-z0-9_./-]+)?@[A-Za-z0-9_./-]+$/;
/** https://github.com/o/r(.git), git@github.com:o/r(.git), ssh://git@github.com/o/r(.git). */
const GITHUB_REMOTE =
  /^(?:https:\/\/(?:[^@/]+@)?github\.com\/|git@github\.com:|ssh:\/\/git@github\.com\/)([A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+?)(?:\.git)?\/?$/;

export function actionSource(given: string | undefined, agentguardRoot: string): ActionSource {
  if (given !== undefined) {
    if (!ACTION_REF.test(given))
      throw new ConfigError(
        `--action '${given}' is not an action reference. Fix: pass OWNER/REPO@REF, the GitHub repository holding agentguard's action.yml at a tag or commit (e.g. acme/agentguard@v1).`,
      );
    return { kind: 'given', ref: given };
  }
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-C', agentguardRoot, ...args], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : null;
  };
  // Only agentguard's own checkout, not a repository it happens to sit inside.
  const top = git('rev-parse', '--show-toplevel');
  if (top === null || top !== agentguardRoot) return { kind: 'variables' };
  const repository = GITHUB_REMOTE.exec(git('remote', 'get-url', 'origin') ?? '')?.[1];
  const commit = git('rev-parse', '--verify', 'HEAD^{commit}');
  if (repository === undefined || commit === null || !/^[0-9a-f]{40}$/.test(commit))
    return { kind: 'variables' };
  return { kind: 'origin', ref: `${repository}@${commit}`, repository, commit };
}

/** What init says about the source: what the user must set or check, or null when nothing. */
export function actionSourceNote(source: ActionSource): string | null {
  if (source.kind === 'given') return null;
  if (source.kind === 'origin')
    return (
      `note: the workflow uses ${source.ref}: the GitHub repository this agentguard was cloned from, at the commit it runs; ` +
      'that commit must be on GitHub (push it), or run init --ci again with --action OWNER/REPO@REF'
    );
  return (
    `set: the repository variables ${ACTION_VARIABLES.repository} (the GitHub repository holding agentguard's action.yml, OWNER/REPO) ` +
    `and ${ACTION_VARIABLES.ref} (a tag or commit of it), under Settings → Secrets and variables → Actions → Variables; ` +
    'the workflow checks it out and stops with that message until both are set. Or run init --ci again with --action OWNER/REPO@REF'
  );
}
