import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { sha256File } from './digest.js';

/**
 * Top-level entries of a run folder that are not artifacts: the live workspace, the harness's
 * git copies (the baseline and the template's history) and the agent's HOME (what the agent left there is committed by diff.json, diff.patch
 * and canaries.json), the grading copy and the withheld grader files (made from the baseline, the
 * diff and the template, which the manifest hashes; what the tests wrote there is the tests'),
 * sockets, re-analyses written later under another policy, and the manifest itself.
 */
export const NOT_ARTIFACTS = new Set([
  'repo',
  'baseline.git',
  'history.git',
  'grading',
  'grader',
  'home',
  'setup-home',
  'net',
  'analyses',
  'manifest.json',
]);

/** A queue batch's folder for the runs its workers sent back: each sealed on its own, named in the batch's manifest by its manifest's digest. */
export const BATCH_RUNS = 'runs';

/** Top-level entries of a batch folder that are not the batch's own artifacts. */
export const NOT_BATCH_ARTIFACTS: ReadonlySet<string> = new Set([...NOT_ARTIFACTS, BATCH_RUNS]);

export type ArtifactEntry = { path: string; sha256: string; bytes: number };

/** What a walk of the run folder found: regular files, and anything a run never writes there. */
export type ArtifactWalk = {
  files: ArtifactEntry[];
  /** Symlinks, sockets, devices: each one a reason the folder cannot be trusted as written. */
  strange: { path: string; what: string }[];
};

/** Every artifact of a run folder (or, with NOT_BATCH_ARTIFACTS, a batch folder) with its sha256, in sorted order; symlinks are never followed. */
export function walkArtifacts(runDir: string, skip: ReadonlySet<string> = NOT_ARTIFACTS): ArtifactWalk {
  const files: ArtifactEntry[] = [];
  const strange: ArtifactWalk['strange'] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(runDir, rel)).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      if (!rel && skip.has(name)) continue;
      if (name.endsWith('.tmp')) continue;
      const abs = path.join(runDir, child);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) strange.push({ path: child, what: `a symlink to ${readlinkSync(abs)}` });
      else if (st.isDirectory()) walk(child);
      else if (st.isFile()) files.push({ path: child, ...sha256File(abs) });
      else strange.push({ path: child, what: 'not a regular file' });
    }
  };
  walk('');
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, strange };
}
