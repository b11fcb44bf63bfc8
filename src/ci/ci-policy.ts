import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readConfigYaml } from '../config/load.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { CI_CONFIG_NAMES, type CiConfig, loadCiConfig } from './ci-config.js';
import type { CiRange } from './resolve-range.js';
import { userGit } from './user-git.js';

/*
 * Where `agentguard ci` takes its policy from. The changes it judges must not choose how they are
 * judged, so the policy is never read from the checkout: it is the policy committed in the commit
 * the changes are judged against (the base branch's tip with --base, HEAD for the working tree),
 * or a file the operator names with --policy outside the checkout. The policy file and the rule
 * files it names are written from that commit into a private folder and loaded there by the same
 * loader, so every path in it resolves in the base commit, not in the pull request.
 */

/** Where the policy came from, in words for messages and the evidence. */
export type PolicySource =
  | { kind: 'commit'; ref: string; sha: string; path: string }
  | { kind: 'file'; file: string };

export type CiPolicy = CiConfig & {
  source: PolicySource;
  /** `main:.agentguard.yaml`, or the --policy file: how messages name the policy. */
  label: string;
  /**
   * Paths of the repository that hold policy (the CI config names, the file read and its rule
   * files): a change to one is a change to how later pull requests are judged, so the changes may
   * not make it unseen. Empty for a --policy file, which the repository does not hold.
   */
  guarded: string[];
  /** Removes the private folder the committed policy was read from; call when the run is over. */
  dispose: () => void;
};

export type PolicyFlags = {
  /** --config: the policy's path in the repository, read from the base commit. */
  config?: string;
  /** --policy: a policy file outside the checkout, read as it is. */
  policy?: string;
};

export function readCiPolicy(range: CiRange, flags: PolicyFlags): CiPolicy {
  const { root } = range;
  if (flags.config !== undefined && flags.policy !== undefined)
    throw new ConfigError(
      '--config and --policy both name the policy. Fix: pass --config PATH for a policy committed in the repository, or --policy FILE for one outside the checkout.',
    );
  if (flags.policy !== undefined) return operatorPolicy(root, flags.policy);
  const ref = range.mode === 'commits' ? range.base_ref : 'HEAD';
  const sha = range.base_sha;
  const rel = flags.config === undefined ? defaultPolicyPath(root, sha, ref) : repoPath(root, flags.config);
  const label = `${ref}:${rel}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentguard-policy-'));
  try {
    const file = path.join(dir, ...rel.split('/'));
    writeBlob(root, sha, rel, file, label, '--config');
    const ruleFiles = ruleFilesOf(file, rel, label);
    for (const r of ruleFiles) writeBlob(root, sha, r, path.join(dir, ...r.split('/')), `${ref}:${r}`, label);
    const loaded = relabel(() => loadCiConfig(file, root), dir, `${ref}:`);
    return {
      ...loaded,
      source: { kind: 'commit', ref, sha, path: rel },
      label,
      guarded: [...new Set([...CI_CONFIG_NAMES, rel, ...ruleFiles])],
      dispose: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** A --policy file: the operator's, so it must not lie in the checkout the changes were written to. */
function operatorPolicy(root: string, flag: string): CiPolicy {
  const file = path.resolve(flag);
  let real = file;
  try {
    real = realpathSync(file);
  } catch {
    // a missing file is said by the loader, naming it
  }
  if (inside(realpathSync(root), real) || inside(root, file))
    throw new ConfigError(
      `--policy ${flag}: ${real} lies inside the checkout being judged, so the changes could have written it. ` +
        'Fix: keep the policy outside the checkout (e.g. in $RUNNER_TEMP, or a repository of its own), or pass --config PATH to read it from the base commit.',
    );
  return {
    ...loadCiConfig(file, root),
    source: { kind: 'file', file: real },
    label: real,
    guarded: [],
    dispose: () => {},
  };
}

/** The first of CI_CONFIG_NAMES committed in the base commit. */
function defaultPolicyPath(root: string, sha: string, ref: string): string {
  for (const name of CI_CONFIG_NAMES) if (treeEntry(root, sha, name) !== null) return name;
  throw new ConfigError(
    `no CI policy found: neither ${CI_CONFIG_NAMES.join(' nor ')} is committed in ${ref} (${sha.slice(0, 12)}), the commit the changes are judged against. ` +
      'Fix: commit .agentguard.yaml there first (at least test_command; see docs/ci.md), pass --config PATH for another committed path, or --policy FILE for a file outside the checkout.',
  );
}

/** `flag` as a path inside the repository, `/`-separated; refused when it leaves it. */
function repoPath(root: string, flag: string): string {
  const abs = path.resolve(root, flag);
  const rel = path.relative(root, abs);
  if (rel === '' || !inside(root, abs))
    throw new ConfigError(
      `--config ${flag} is not a file of the repository ${root}; it names the policy's path in the base commit. ` +
        'Fix: pass a path inside the repository, or --policy FILE for a policy outside the checkout.',
    );
  return rel.split(path.sep).join('/');
}

function inside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Mode and object of `rel` in commit `sha`, or null when the commit has no such entry. */
function treeEntry(
  root: string,
  sha: string,
  rel: string,
): { mode: string; type: string; object: string } | null {
  const r = userGit(root, ['ls-tree', '-z', '--full-tree', sha, '--', rel]);
  if (!r.ok || r.stdout.length === 0) return null;
  const rec = r.stdout.subarray(0, r.stdout.indexOf(0));
  const tab = rec.indexOf(0x09);
  if (rec.subarray(tab + 1).toString('utf8') !== rel) return null;
  const [mode = '', type = '', object = ''] = rec.subarray(0, tab).toString('latin1').split(' ');
  return { mode, type, object };
}

/** Write the committed file `rel` of `sha` to `to`; a missing file, a folder or a link is refused. */
function writeBlob(root: string, sha: string, rel: string, to: string, label: string, namedBy: string): void {
  const entry = treeEntry(root, sha, rel);
  const why =
    entry === null
      ? 'is not in that commit'
      : entry.mode === '120000'
        ? 'is a symlink there, which a policy read from a commit may not be'
        : entry.type !== 'blob'
          ? 'is not a file there'
          : null;
  if (why !== null || entry === null)
    throw new ConfigError(
      `${label} ${why} (named by ${namedBy}). Fix: commit it as a regular file in the base branch, or pass --policy FILE for a policy outside the checkout.`,
    );
  const blob = userGit(root, ['cat-file', 'blob', entry.object]);
  if (!blob.ok) throw new ConfigError(`${label} could not be read: ${blob.stderr}`);
  mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
  writeFileSync(to, blob.stdout, { mode: 0o600, flag: 'wx' });
}

/**
 * The repository paths of the rule files the committed policy names (`security.rules`), which must
 * come from the same commit. One that leaves the repository is refused: the base commit cannot
 * vouch for a file it does not hold.
 */
function ruleFilesOf(file: string, rel: string, label: string): string[] {
  const read = readConfigYaml(file);
  if (!read.ok) return []; // the loader says why, naming the file
  const security = (read.value as { security?: { rules?: unknown } } | null)?.security;
  const rules = Array.isArray(security?.rules) ? security.rules : [];
  const out: string[] = [];
  for (const r of rules) {
    if (typeof r !== 'string' || r === '') continue; // the schema says why
    const joined = path.posix.normalize(path.posix.join(path.posix.dirname(rel), r));
    if (path.posix.isAbsolute(r) || joined.startsWith('../') || joined === '..')
      throw new ConfigError([
        {
          file: label,
          field: 'security.rules',
          message: `'${r}' lies outside the repository, so the base commit cannot vouch for it`,
          fix: 'commit the rule file in the repository and name it relative to the policy, or pass --policy FILE',
        },
      ]);
    out.push(joined);
  }
  return out;
}

/** Run `load`, naming files of the private folder as `<ref>:<path>` in the issues it throws. */
function relabel<T>(load: () => T, dir: string, prefix: string): T {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const name = (text: string) => text.replaceAll(`${dir}/`, prefix);
    if (err.issues.length === 0) throw new ConfigError(name(err.message), { cause: err });
    throw new ConfigError(
      err.issues.map((i): ConfigIssue => ({ ...i, file: name(i.file), message: name(i.message) })),
      { cause: err },
    );
  }
}
