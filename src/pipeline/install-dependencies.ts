import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ResolvedConfig } from '../config/schema.js';
import { type DependencyEntry, manifestOf as manifestEntry } from '../config/setup-schema.js';
import { ConfigError, SetupError } from '../errors.js';
import type { InstalledDependency, SetupEvidence } from '../evidence/bundle-types.js';
import { runPath } from '../evidence/layout.js';
import { writeJson } from '../evidence/write.js';
import type { Disposer } from '../exec/disposer.js';
import { RunStopped } from '../exec/interrupt.js';
import { sha256File } from '../provenance/digest.js';
import type { SandboxChoice } from '../sandbox/select-sandbox.js';
import type { SandboxPlaces } from '../sandbox/types.js';
import type { CommandLog } from './commands.js';
import {
  dependencyCacheKey,
  hasCachedVenv,
  installInputs,
  restoreDependencies,
  saveDependencies,
} from './dependency-cache.js';
import { type InstallStep, JS_CLIENT_INSTALL, jsClient, jsInstall, projectScripts } from './js-install.js';
import { pipInstall } from './pip-install.js';
import { lockInstaller, noteUnlocked } from './pip-lock-evidence.js';
import { resolveProgram } from './preflight.js';
import { openSetupHome } from './setup-home.js';
import { setupFailure, setupStopped } from './setup-phase.js';
import { mirrorRefusal, openSetupSandbox } from './setup-sandbox.js';
import type { Timeline } from './timeline.js';
import { pythonIdentity } from './venv-relocate.js';

/** The program npm and pip entries need on the host (and in the sandbox, which shows the host's root). */
const PROGRAM: Record<'npm' | 'pip', { name: string; install: string }> = {
  npm: { name: 'npm', install: 'install Node.js with its npm' },
  pip: {
    name: 'python3',
    install: 'install python3 with its venv module (Debian: apt-get install python3 python3-venv)',
  },
};

/** The workspace file an entry installs from. */
export function manifestOf(dep: DependencyEntry): string {
  return manifestEntry(dep).rel;
}

/** The program that runs an entry's install, or null when it is missing (pnpm, yarn: see jsClient). */
export function clientOf(
  dep: DependencyEntry,
  repoDir: string,
  pathVar: string | undefined,
): string[] | null {
  if (dep.manager === 'pnpm' || dep.manager === 'yarn' || dep.manager === 'bun')
    return jsClient(dep.manager, path.join(repoDir, path.dirname(dep.lockfile)), pathVar);
  const program = PROGRAM[dep.manager].name;
  return resolveProgram(program, repoDir, pathVar) ? [program] : null;
}

/** `setup.dependencies[0] (npm package-lock.json)`: how messages and the timeline name an entry. */
function entryName(index: number, dep: DependencyEntry): string {
  return `setup.dependencies[${index}] (${dep.manager} ${manifestOf(dep)})`;
}

/**
 * The commands one entry runs, in order. npm: `npm ci` in the lockfile's folder, offline from the
 * cache or from the mirror. pnpm, yarn: a frozen install by `client` (see jsInstall). pip: a virtual
 * environment in the workspace and its pip (see pipInstall). Without `scripts`, no dependency code
 * runs: the JavaScript clients skip lifecycle scripts and pip takes wheels only.
 */
export function installCommands(dep: DependencyEntry, repoDir: string, client: string[] = []): InstallStep[] {
  if (dep.manager === 'pnpm' || dep.manager === 'yarn' || dep.manager === 'bun')
    return [jsInstall(dep, repoDir, client)];
  if (dep.manager === 'npm') {
    const source = dep.cache
      ? ['--offline', '--cache', dep.cache, '--logs-max=0']
      : ['--registry', dep.mirror ?? ''];
    const argv = ['npm', 'ci', '--no-audit', '--no-fund', '--no-update-notifier', ...source];
    if (!dep.scripts) argv.push('--ignore-scripts');
    return [{ argv, cwd: path.join(repoDir, path.dirname(dep.lockfile)) }];
  }
  return pipInstall(dep, repoDir);
}

/**
 * Whether setup makes `program` (workspace-relative): an interpreter or script in a pip entry's venv,
 * or a JavaScript client's `node_modules/.bin`. The test command may name it before it exists.
 */
export function setupMakes(cfg: ResolvedConfig, program: string): boolean {
  if (program.startsWith('/') || program.split('/').includes('..')) return false;
  return (cfg.setup?.dependencies ?? []).some((dep) => {
    const made =
      dep.manager === 'pip' ? dep.target : path.join(path.dirname(dep.lockfile), 'node_modules', '.bin');
    return path.normalize(program).startsWith(`${path.normalize(made)}/`);
  });
}

/** The cache key of a pip entry after the earlier ones into the same venv (`before`, updated). */
function chainedKey(before: Map<string, string>, target: string, own: string): string {
  const prior = before.get(path.normalize(target));
  const key = prior ? createHash('sha256').update(`${prior}\n${own}`).digest('hex') : own;
  before.set(path.normalize(target), key);
  return key;
}

/**
 * A failure with the installer's own reason when it gave one (the pyproject install's last
 * `agentguard:` line: a refused requirement, a file the lockfile's hashes do not allow).
 */
function explained(failure: string, stderr: string): string {
  const said = [...stderr.matchAll(/^agentguard: (.+)$/gm)].at(-1)?.[1];
  return said ? `${failure}: ${said.slice(0, 600)}` : failure;
}

/**
 * What the plan refuses before anything is written: a manager's program missing from PATH, or a
 * mirror the run's sandbox cannot reach.
 */
export function checkDependencies(
  cfg: ResolvedConfig,
  sandboxChoice: SandboxChoice,
  pathVar: string | undefined,
): void {
  const issues = (cfg.setup?.dependencies ?? []).flatMap((dep, index) => {
    const field = `setup.dependencies[${index}]`;
    const found: { field: string; message: string; fix: string }[] = [];
    if (!clientOf(dep, cfg.repo, pathVar)) {
      const js = dep.manager === 'pnpm' || dep.manager === 'yarn' || dep.manager === 'bun';
      found.push({
        field: `${field}.manager`,
        message: js
          ? dep.manager === 'bun'
            ? `bun needs 'bun' on PATH, which it is not`
            : `${dep.manager} needs '${dep.manager}' or 'corepack' on PATH, and neither is`
          : `${dep.manager} needs '${PROGRAM[dep.manager].name}', which is not on PATH`,
        fix: js ? JS_CLIENT_INSTALL[dep.manager] : PROGRAM[dep.manager].install,
      });
    }
    const refused = dep.mirror ? mirrorRefusal(sandboxChoice.sandbox) : null;
    if (refused)
      found.push({
        field: `${field}.mirror`,
        message: refused,
        fix: 'use a cache folder instead, or the bwrap sandbox',
      });
    return found;
  });
  if (issues.length > 0) throw new ConfigError(issues.map((i) => ({ file: cfg.config_path, ...i })));
}

/**
 * `setup.dependencies`, before setup_command and before the agent: each install as `setup` commands
 * in a sandbox session of setup's own (caches read-only, mirrors only through setup's proxy), never
 * under the tracer. What ran is `evidence/setup.json`, rewritten after each entry so a failure keeps
 * what came before it. The first failure ends the run as ERROR (`setup-failed`), naming the entry.
 */
export async function installDependencies(
  opts: SandboxPlaces & {
    cfg: ResolvedConfig;
    sandboxChoice: SandboxChoice;
    env: Record<string, string>;
    commands: CommandLog;
    timeline: Timeline;
    disposer: Disposer;
    /** Installs kept between runs, by cache key (in the output folder the sandbox hides); none without. */
    cacheRoot?: string;
  },
): Promise<void> {
  const { cfg, commands, timeline, repoDir } = opts;
  const deps = cfg.setup?.dependencies ?? [];
  if (deps.length === 0) return;
  const home = openSetupHome(opts);
  let installed = false;
  const sandbox = await openSetupSandbox({
    ...opts,
    ...home.places,
    choice: opts.sandboxChoice,
    caches: deps.flatMap((d) => (d.cache ? [d.cache] : [])),
    mirrors: deps.flatMap((d) => (d.mirror ? [d.mirror] : [])),
  });
  const evidence: SetupEvidence = { dependencies: [], network: sandbox.network, network_records: [] };
  const save = () => writeJson(runPath(opts.runDir, 'setup'), evidence);
  // Each entry's client, interpreter and cache folder, known before any runs: whether a later entry
  // into the same venv is cached decides whether an earlier one's copy is needed at all.
  const before = new Map<string, string>();
  const plans = deps.map((dep) => {
    const client = clientOf(dep, repoDir, opts.env.PATH) ?? [];
    const runtime =
      dep.manager === 'pip' ? pythonIdentity('python3', repoDir, opts.env.PATH) : process.version;
    const own = opts.cacheRoot ? dependencyCacheKey(dep, repoDir, client, runtime) : null;
    // Entries installing into one venv build on each other: a cached venv holds what the entries
    // before it installed too, so its key is theirs as well.
    const key = own && dep.manager === 'pip' ? chainedKey(before, dep.target, own) : own;
    const cached = key && opts.cacheRoot ? path.join(opts.cacheRoot, key) : null;
    return { client, key, cached };
  });
  /** The later entry into the same venv whose cached copy holds this one's packages too, or -1. */
  const venvLater = (index: number): number => {
    const dep = deps[index];
    if (dep?.manager !== 'pip' || !hasCachedVenv(plans[index]?.cached)) return -1;
    return deps.findIndex(
      (d, j) =>
        j > index &&
        d.manager === 'pip' &&
        path.normalize(d.target) === path.normalize(dep.target) &&
        hasCachedVenv(plans[j]?.cached),
    );
  };
  const copiedLater = new Set<number>();
  try {
    for (const [index, dep] of deps.entries()) {
      const name = entryName(index, dep);
      const manifest = manifestOf(dep);
      let sha256: string;
      try {
        sha256 = sha256File(path.join(repoDir, manifest)).sha256;
      } catch {
        timeline.add('prepare', 'dependencies-failed', `${name}: ${manifest} is not in the workspace`);
        throw new RunStopped({
          kind: 'setup-failed',
          step: name,
          detail: `${manifest} is not in the workspace`,
        });
      }
      timeline.add('prepare', 'dependencies-started', name);
      const started = Date.now();
      const { client, key, cached } = plans[index] as (typeof plans)[number];
      const record: InstalledDependency = {
        entry: `setup.dependencies[${index}]`,
        manager: dep.manager,
        manifest,
        manifest_sha256: sha256,
        inputs: installInputs(dep, repoDir),
        source: dep.cache ? 'cache' : 'mirror',
        from: dep.cache ?? dep.mirror ?? '',
        scripts: dep.scripts,
        ...(dep.manager === 'pip' ? { target: dep.target } : {}),
        ...(dep.manager === 'pnpm' || dep.manager === 'yarn' || dep.manager === 'bun'
          ? { client: client.join(' ') }
          : {}),
        ...(dep.manager === 'pip' && dep.lockfile ? { installer: lockInstaller(dep.lockfile) } : {}),
        status: 'installed',
        exit_code: 0,
        duration_ms: 0,
        command_ids: [],
      };
      evidence.dependencies.push(record);
      if (key) record.cache_key = key;
      /** Runs `steps` as setup commands; false when the run was ended from outside. */
      const runSteps = async (steps: InstallStep[]): Promise<boolean> => {
        for (const step of steps) {
          const { record: ran, outcome } = await commands.run({
            role: 'setup',
            spec: sandbox.wrap({
              argv: step.argv,
              cwd: step.cwd,
              env: { ...opts.env, HOME: home.home, ...step.env },
            }),
            argv: step.argv,
            display_argv: step.display ?? step.argv,
            cwd: step.cwd,
            timeoutMs: cfg.setup_timeout_seconds * 1000,
            maxOutputBytes: cfg.max_output_bytes,
            policy: [],
          });
          record.command_ids.push(ran.id);
          record.exit_code = ran.exit_code;
          record.duration_ms = Date.now() - started;
          if (outcome?.aborted) return false; // ended from outside; the run's own stop reason stands
          const failure = setupFailure(ran, cfg.setup_timeout_seconds);
          if (failure) {
            const failed = explained(failure, ran.stderr);
            record.status = 'failed';
            record.error = `${step.argv.slice(0, 3).join(' ')}: ${failed}`;
            timeline.add('prepare', 'dependencies-failed', `${name}: ${failed}`);
            throw setupStopped(name, failed, ran);
          }
        }
        return true;
      };
      // The project's own install-time scripts run after the install and after a restore alike:
      // the cache holds what the install wrote, not what they write.
      const ownScripts = projectScripts(dep, repoDir, client);
      // Copied once, by the last cached entry into the venv: its copy replaces this one's anyway.
      const later = venvLater(index);
      if (later >= 0) {
        copiedLater.add(later);
        record.reused = true;
        record.exit_code = null;
        noteUnlocked(record, dep, repoDir, timeline, name);
        timeline.add(
          'prepare',
          'dependencies-installed',
          `${name} from the dependency cache, in the copy setup.dependencies[${later}] restores`,
        );
        save();
        continue;
      }
      const restored = cached !== null && restoreDependencies(cached, dep, opts, client);
      if (!restored && copiedLater.has(index))
        throw new SetupError(
          `${name}: its cached venv in ${cached} went away during setup, and the entries before it were to come from it. Fix: run again; the install runs from the start.`,
        );
      if (restored) {
        record.reused = true;
        record.exit_code = null;
        record.duration_ms = Date.now() - started;
        noteUnlocked(record, dep, repoDir, timeline, name);
        if (!(await runSteps(ownScripts))) return;
        timeline.add(
          'prepare',
          'dependencies-installed',
          `${name} from the dependency cache in ${record.duration_ms} ms`,
        );
        save();
        continue;
      }
      if (!(await runSteps(installCommands(dep, repoDir, client)))) return;
      // What the install wrote: the workspace, and corepack's client in setup's HOME.
      noteUnlocked(record, dep, repoDir, timeline, name);
      if (cached) saveDependencies(cached, dep, home.places, client);
      if (!(await runSteps(ownScripts))) return;
      timeline.add('prepare', 'dependencies-installed', `${name} in ${record.duration_ms} ms`);
      save();
    }
    installed = true;
  } finally {
    evidence.network_records = await sandbox.stop();
    home.close(installed);
    save();
  }
}
