import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { AgentSpec } from '../reports/batch-types.js';
import { writeBundleFile } from './bundle-writer.js';
import { extractBundleFile } from './tree-bundle.js';

/** Over this, a task does not travel through Redis: the coordinator refuses it naming the task, a worker before fetching it. */
export const TASK_BUNDLE_LIMIT = 64 * 1024 * 1024;
/** A task's listing once uncompressed: a worker stops gunzipping here, so a gzip bomb costs it this much at most. */
export const TASK_EXPANDED_LIMIT = 256 * 1024 * 1024;
/** Files, folders and links of a task (a repo template with its node_modules has tens of thousands). */
export const TASK_ENTRIES_LIMIT = 500_000;

/** Folder names never bundled: agentguard output and VCS metadata inside a task's folder. */
const SKIP = new Set(['.agentguard', '.git']);

/**
 * Everything a task's config points at: its folder (prompt file, model script, profile files), the
 * repo template, the solution and rule files, as one bundle rooted at their common folder, written
 * to `file` a chunk at a time (a task of any size costs the coordinator one chunk of memory). The
 * config keeps its relative paths, so the worker loads it from the extracted copy unchanged.
 */
export async function writeTaskBundle(
  cfg: ResolvedConfig,
  file: string,
): Promise<{ sha256: string; bytes: number; config: string }> {
  const files = [
    path.dirname(cfg.config_path),
    cfg.repo,
    ...(cfg.solution ? [cfg.solution] : []),
    ...cfg.security.rules,
    ...(cfg.agent_profile && path.isAbsolute(cfg.agent_profile) ? [cfg.agent_profile] : []),
  ];
  const root = commonFolder(files);
  const bundle = await writeBundleFile(
    root,
    files.map((f) => path.relative(root, f)),
    file,
    SKIP,
  );
  if (bundle.bytes > TASK_BUNDLE_LIMIT)
    throw new ConfigError(
      `${cfg.config_path}: the task's folders come to ${bundle.bytes} bytes compressed, over the queue's ` +
        `${TASK_BUNDLE_LIMIT} bytes. Fix: make the repo template smaller, or run this task without --queue.`,
    );
  return { ...bundle, config: path.relative(root, cfg.config_path).split(path.sep).join('/') };
}

/** A profile given by path in the matrix file lives on the coordinator only: refused before anything is enqueued. */
export function checkQueueAgent(agent: AgentSpec): void {
  if (agent.kind === 'profile' && (agent.profile.includes('/') || /\.ya?ml$/.test(agent.profile)))
    throw new ConfigError(
      `agent '${agent.name}': profile file ${agent.profile} is not sent to queue workers. ` +
        'Fix: use a built-in profile name, or put the profile in the task config (agent_profile) so it travels with the task.',
    );
}

function commonFolder(paths: readonly string[]): string {
  const split = paths.map((p) => path.resolve(p).split(path.sep));
  const first = split[0] ?? [];
  let n = 0;
  while (n < first.length && split.every((s) => s[n] === first[n])) n++;
  // The parent of the common folder: every bundled path then has a name of its own (the task's
  // folder keeps its name), and a common folder that is itself a file is handled alike.
  return path.dirname(first.slice(0, n).join(path.sep) || path.sep);
}

/**
 * The extracted task of `sha256` under `cacheDir`, when it is not there yet having `fetch` write the
 * bundle into a private file beside it, which is checked against the digest and extracted from
 * there (bundle and listing are never held whole in memory). Extracted beside and renamed into
 * place, so a worker killed mid-way never leaves a half folder that a later job would trust; the
 * bundle file is removed on every path.
 */
export async function materialiseTask(
  cacheDir: string,
  sha256: string,
  fetch: (file: string) => Promise<void>,
  what: string,
): Promise<string> {
  const dest = path.join(cacheDir, sha256);
  if (existsSync(dest)) return dest;
  const tmp = path.join(cacheDir, `.${sha256}.${process.pid}.${Date.now()}`);
  const file = `${tmp}.bundle`;
  try {
    mkdirSync(cacheDir, { recursive: true });
    await fetch(file);
    await extractBundleFile(file, sha256, tmp, what, {
      expandedBytes: TASK_EXPANDED_LIMIT,
      entries: TASK_ENTRIES_LIMIT,
      links: true,
    });
    renameSync(tmp, dest);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (existsSync(dest)) return dest; // another job of this worker got there first
    throw err;
  } finally {
    rmSync(file, { force: true });
  }
  return dest;
}
