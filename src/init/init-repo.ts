import { existsSync, lstatSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { type SchemaKind, shippedSchemaFile } from '../schemas/json-schemas.js';
import type { ActionSource } from './action-source.js';
import type { DependencySetup } from './dependency-setup.js';
import { detectDependencies } from './detect-dependencies.js';
import { detectProject, isFolder, type ProjectFacts } from './detect-project.js';
import { pathPolicy } from './path-policy.js';
import { renderCiConfig, renderWorkflow } from './render-ci.js';
import { type AgentChoice, renderTaskConfig } from './render-config.js';

export type InitOptions = {
  force: boolean;
  ci: boolean;
  agent: AgentChoice;
  /** `uses:` of the workflow `--ci` writes. */
  action: ActionSource;
  /** The package root whose shipped schemas the `$schema` line names. */
  packageRoot?: string;
  /** The environment to look for programs (PATH) and registry settings in (default: this process's). */
  env?: Record<string, string | undefined>;
};

export type InitResult = { facts: ProjectFacts; dependencies: DependencySetup; written: string[] };

export const TASK_CONFIG_NAME = 'agentguard.yaml';
export const CI_CONFIG_NAME = '.agentguard.yaml';
export const WORKFLOW_PATH = '.github/workflows/agentguard.yml';

/**
 * The `$schema` reference for a file in `dir`: relative when agentguard is installed inside the
 * repository (node_modules), so the line works on every clone; absolute otherwise.
 */
export function schemaRef(dir: string, kind: SchemaKind, root?: string): string {
  const file = shippedSchemaFile(kind, root);
  let real = file;
  try {
    real = realpathSync(file);
  } catch {
    // not built yet: name the path the build will write
  }
  const rel = path.relative(realpathSync(dir), real);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
}

/**
 * Write `file` (below `root`) through no link the clone holds: every folder on the way must be a
 * real folder (created when missing), and the temporary file is created fresh (O_EXCL) after any
 * link of that name is removed, so a committed `agentguard.yaml.tmp -> ~/.bashrc` or
 * `.github/workflows -> /etc/cron.d` cannot turn init into a write elsewhere.
 */
function writeNew(root: string, file: string, text: string, force: boolean): void {
  if (existsSync(file) && !force)
    throw new ConfigError(
      `${file} already exists; init does not overwrite it. Fix: remove it, or pass --force to replace it.`,
    );
  realFolders(root, path.dirname(file), true);
  const tmp = `${file}.tmp`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { flag: 'wx' });
  renameSync(tmp, file);
}

/** Make `dir` below `root` (`create`), or only check it: each existing name on the way a real folder. */
function realFolders(root: string, dir: string, create: boolean): void {
  let at = root;
  for (const part of path
    .relative(root, dir)
    .split(path.sep)
    .filter((p) => p !== '')) {
    at = path.join(at, part);
    const st = lstatSync(at, { throwIfNoEntry: false });
    if (st === undefined) {
      if (!create) return;
      mkdirSync(at);
    } else if (!st.isDirectory())
      throw new ConfigError(
        `${at} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}, and init writes only into real folders of the repository. Fix: remove it, or write the file by hand.`,
      );
  }
}

/** Inspect `dir` and write its config (and with `ci`, the CI policy and a GitHub workflow). */
export function initRepo(dir: string, opts: InitOptions): InitResult {
  const root = path.resolve(dir);
  if (!isFolder(root))
    throw new ConfigError(`${root} is not a folder. Fix: pass the repository folder to init (default: .).`);
  const facts = detectProject(root);
  const paths = pathPolicy(facts);
  const dependencies = detectDependencies(root, facts, opts.env ?? process.env);
  const files: { file: string; text: string }[] = opts.ci
    ? [
        {
          file: path.join(root, CI_CONFIG_NAME),
          text: renderCiConfig({ facts, paths, schemaRef: schemaRef(root, 'ci', opts.packageRoot) }),
        },
        {
          file: path.join(root, WORKFLOW_PATH),
          text: renderWorkflow({ action: opts.action, configFile: CI_CONFIG_NAME }),
        },
      ]
    : [
        {
          file: path.join(root, TASK_CONFIG_NAME),
          text: renderTaskConfig({
            facts,
            paths,
            agent: opts.agent,
            schemaRef: schemaRef(root, 'config', opts.packageRoot),
            dependencies,
          }),
        },
      ];
  // Refuse before writing anything: a half-initialised repository is worse than none.
  for (const f of files) realFolders(root, path.dirname(f.file), false);
  if (!opts.force) {
    const taken = files.find((f) => existsSync(f.file));
    if (taken) writeNew(root, taken.file, '', false);
  }
  for (const f of files) writeNew(root, f.file, f.text, opts.force);
  return { facts, dependencies, written: files.map((f) => f.file) };
}
