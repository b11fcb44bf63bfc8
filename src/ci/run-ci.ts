import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { AgentEvidence } from '../evidence/bundle-types.js';
import type { TracerRequest } from '../evidence/kinds.js';
import { runPath } from '../evidence/layout.js';
import type { Observation, TestEvidence, WorkspaceEvidence } from '../evidence/types.js';
import { appendJsonl, writeFileAtomic, writeJson, writeJsonl } from '../evidence/write.js';
import { Disposer, trackDisposer } from '../exec/disposer.js';
import { describeStop, RunStopped, stopReasonOf, throwIfStopped } from '../exec/interrupt.js';
import { noteRun } from '../exec/owner-registry.js';
import { signalExitCode } from '../exec/shutdown.js';
import { checkHistory } from '../history/db.js';
import { packageRoot } from '../package-root.js';
import type { AnalysedRun } from '../pipeline/analyse-run.js';
import { CommandLog } from '../pipeline/commands.js';
import type { RunContext } from '../pipeline/context.js';
import { finishRun } from '../pipeline/finish-run.js';
import { ObservationWindow } from '../pipeline/observe-window.js';
import { fillMissingEvidence } from '../pipeline/partial-evidence.js';
import { agentHomeFor, chooseSandbox, chooseTracer } from '../pipeline/plan-run.js';
import { resolveProgram } from '../pipeline/preflight.js';
import { loadRunRules, saveRunRules } from '../pipeline/rules.js';
import { newRunId } from '../pipeline/run-id.js';
import { runTests } from '../pipeline/test-phase.js';
import { Timeline } from '../pipeline/timeline.js';
import { enforceFloor, type InputReach, type IsolationFloor, inputReach } from '../policy/isolation-floor.js';
import { copyIgnoredForTests } from './copy-ignored.js';
import { publishHistory, stageHistory } from './held-history.js';
import {
  type HeldOutput,
  holdOutputFolder,
  publishRun,
  stagingFolder,
  stillAtPath,
  writeNewFileHeld,
} from './held-output.js';
import { OUTPUT_FOLDER } from './materialize.js';
import { prepareCiWorkspace } from './prepare-ci.js';
import { type AgentLogs, readAgentLogs } from './read-agent-logs.js';
import type { CiRange } from './resolve-range.js';

export type CiOptions = {
  range: CiRange;
  cfg: ResolvedConfig;
  runTests: boolean;
  tracer?: TracerRequest;
  /** Globs of agent command logs in the changes (the config's `agent_logs`). */
  agentLogGlobs?: readonly string[];
  /** Agent command logs outside the changes (`--agent-log FILE`), checked to exist by the caller. */
  agentLogFiles?: readonly string[];
  /** Where the policy came from (`main:.agentguard.yaml`, or the --policy file), named in messages and the evidence. */
  policyLabel: string;
  /**
   * Repository paths that hold the policy (ci-policy.ts): forbidden to the changes, so a change to
   * how later pull requests are judged fails forbidden-paths, naming the file.
   */
  guarded: readonly string[];
  /**
   * The operator's isolation floor for the tests the changes bring; unset only by --allow-below-floor.
   * Its root is the committed policy's private folder: every other host path the policy shows the
   * tests (toolchains, sandbox.mounts) must be listed in the host policy, as a fork can edit the base.
   */
  floor?: IsolationFloor;
  /** The policy is the operator's --policy file, not a commit's: its host paths are not judged. */
  operatorPolicy?: boolean;
};

export type CiResult = AnalysedRun & {
  runDir: string;
  runId: string;
  exitCode: number;
  /** Ended by a signal before it finished: judged ERROR on what was collected, exit 128+N. */
  stopped: boolean;
  /** Policy files (`guarded`) the changes edit: each fails forbidden-paths. */
  policyEdits: string[];
  /** The output folder is no longer at its path (moved, or swapped for a link): the run went into the held one. */
  outputMoved: boolean;
};

/**
 * One CI run: the checkout's changes laid out as a run folder under `.agentguard/ci/<id>/` (base
 * tree as the baseline, judged tree as the workspace), the tests run in that copy inside the
 * sandbox and under the tracer, then the same sealing, analysis, reports and history as a run.
 * No agent runs; its evidence says so. The checkout is only read.
 */
export async function runCi(ctx: RunContext, opts: CiOptions): Promise<CiResult> {
  const { range } = opts;
  const cfg: ResolvedConfig = {
    ...opts.cfg,
    forbidden_paths: [...opts.cfg.forbidden_paths, ...opts.guarded.map(literalGlob)],
  };
  const started = ctx.now();
  const runId = newRunId(started);
  const rules = loadRunRules(cfg);
  const testProgram = cfg.test_command[0] ?? '';
  if (opts.runTests && !resolveProgram(testProgram, range.root, ctx.env.PATH)) {
    throw new ConfigError(
      `${opts.policyLabel}: field 'test_command': the program '${testProgram}' was not found in the checkout or on PATH. ` +
        'Fix: install it or correct the command.',
    );
  }
  const sandboxChoice = opts.runTests ? await chooseSandbox(cfg) : null;
  const tracer = sandboxChoice ? await chooseTracer(cfg, sandboxChoice.sandbox, opts.tracer) : null;
  // The tests are the changes' own code: they run no lower than the operator's floor.
  if (sandboxChoice && tracer)
    enforceFloor(opts.floor, {
      file: opts.policyLabel,
      sandbox: { kind: sandboxChoice.sandbox.kind, onHost: sandboxChoice.sandbox.capabilities.onHost },
      tracer: tracer.choice.kind,
      network: cfg.network.mode,
      setupCommand: false,
      // A --policy file is the operator's: what it shows of the host is theirs to choose.
      ...(opts.operatorPolicy ? {} : { reach: ciReach(cfg) }),
    });
  const requested = tracer?.requested ?? opts.tracer ?? cfg.tracer;
  // config.json holds the config as the run uses it: the sandbox and tracer chosen (the window
  // rewrites the tracer should the planned one give way), or no tracer when no test runs.
  const used: ResolvedConfig = {
    ...cfg,
    ...(sandboxChoice ? { sandbox: sandboxChoice.sandbox.kind } : {}),
    tracer: tracer?.choice.kind ?? 'off',
  };
  // Held from here (after every check that refuses the run, so a refusal writes nothing): a swap of
  // the folder for a link after ci.ts checked it is never written through (held-output.ts).
  const output = holdOutputFolder(ctx.outputDir, range.root);
  try {
    // Where the run folder ends up: `ci/<id>` of the held output folder, once sealed.
    const finalDir = path.join(output.dir, 'ci', runId);
    // The run is made in a private folder no other user can swap, and moved into the held ci/ at the end.
    const staging = stagingFolder();
    // The history index too: SQLite would open it by path (held-history.ts).
    let historyFile = path.join(staging, 'history.db');
    try {
      if (ctx.history) {
        historyFile = stageHistory(output, staging);
        checkHistory(historyFile);
      }
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
    ignoreOutputFolder(output, range.root);
    const runDir = path.join(staging, runId);
    const repoDir = runPath(runDir, 'repo');
    const hostHome = runPath(runDir, 'home');
    mkdirSync(runDir);

    // The CLI's SIGINT/SIGTERM/SIGHUP: the step under way ends (the test command is stopped), what was
    // collected is written and judged, as in `agentguard run`.
    const { signal } = ctx;
    const disposer = new Disposer();
    const untrack = trackDisposer(disposer);
    // So that a later run sweeps this one's cgroups should the harness be killed outright.
    noteRun(runId);
    let policyEdits: string[] = [];
    try {
      mkdirSync(path.join(runDir, 'evidence'));
      saveRunRules(runDir, rules);
      writeJson(runPath(runDir, 'config'), used);
      writeFileAtomic(runPath(runDir, 'commands'), '');
      const timeline = new Timeline(runPath(runDir, 'timeline'), ctx.progress);
      const commands = new CommandLog(runPath(runDir, 'commands'), signal);
      timeline.add('prepare', 'ci-checkout', describeRange(range));
      ctx.fault?.('prepare');
      const ws = await prepareCiWorkspace(range, runDir, repoDir);
      const workspace: WorkspaceEvidence = {
        run_id: runId,
        repo_dir: repoDir,
        baseline_sha: ws.baseline_sha,
        template: range.root,
        files: ws.files,
      };
      writeJson(runPath(runDir, 'workspace'), workspace);
      // What the agent says it ran, where the PR or the job carries its logs: claims the checks read
      // beside what the tests are seen to do.
      const logs = readAgentLogs({
        repoDir,
        diff: ws.diff,
        globs: opts.agentLogGlobs ?? [],
        files: opts.agentLogFiles ?? [],
      });
      for (const r of logs.records) appendJsonl(runPath(runDir, 'commands'), r);
      for (const note of logs.notes) {
        timeline.add('collect', 'agent-log', note);
        ctx.log(`agent log ${note}`);
      }
      writeJson(runPath(runDir, 'agent'), noAgent(range, logs, opts.policyLabel));
      writeJson(runPath(runDir, 'diff'), ws.diff);
      policyEdits = [
        ...new Set(
          ws.diff.files.flatMap((f) => [f.path, f.old_path ?? '']).filter((p) => opts.guarded.includes(p)),
        ),
      ];
      if (policyEdits.length > 0)
        timeline.add('collect', 'policy-edited', `${policyEdits.join(', ')}: judged by ${opts.policyLabel}`);
      writeFileAtomic(runPath(runDir, 'patch'), ws.patch);
      timeline.add('collect', 'diff', `${ws.diff.files.length} files`);
      writeJsonl(runPath(runDir, 'syscalls'), []);
      throwIfStopped(signal);
      if (sandboxChoice && tracer) {
        // The job's installed dependencies and build output, which the tests need and the diff skips.
        const ignored = copyIgnoredForTests(range.root, repoDir);
        const skippedNote =
          ignored.skipped.length > 0 ? `; not copied (name not UTF-8): ${ignored.skipped.join(', ')}` : '';
        timeline.add('prepare', 'ignored-files', `${ignored.entries} copied for the tests${skippedNote}`);
        if (ignored.error)
          ctx.log(
            `agentguard: warning: the checkout's ignored files were not all copied for the tests: ${ignored.error}`,
          );
        throwIfStopped(signal);
        mkdirSync(hostHome, { recursive: true });
        const agentHome = agentHomeFor(sandboxChoice, hostHome);
        const window = await ObservationWindow.open({
          cfg: used,
          runId,
          runDir,
          repoDir,
          hostHome,
          agentHome,
          visible: [packageRoot(), path.dirname(path.dirname(process.execPath))],
          sandboxChoice,
          tracer,
          timeline,
          log: ctx.log,
          disposer,
          ...(signal ? { signal } : {}),
          ...(ctx.fault ? { fault: ctx.fault } : {}),
        });
        try {
          throwIfStopped(signal);
          const env = {
            PATH: ctx.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
            HOME: agentHome,
            LANG: 'C.UTF-8',
            TERM: 'dumb',
            NO_COLOR: '1',
            TMPDIR: '/tmp',
            CI: 'true',
          };
          ctx.fault?.('tests');
          const tests = await runTests({
            cfg,
            repoDir,
            env,
            wrap: (spec) => window.wrapTests(spec),
            commands,
            timeline,
          });
          writeJson(runPath(runDir, 'tests'), tests);
        } finally {
          // No agent argv: every traced event is the setup's or the tests'. Events seen up to an
          // interrupt are evidence too.
          const closed = await window.close([], cfg.test_command);
          writeJsonl(runPath(runDir, 'network'), []);
          writeJsonl(runPath(runDir, 'testSyscalls'), closed.testSyscalls);
          writeJson(runPath(runDir, 'observation'), closed.observation);
        }
      } else {
        const tests: TestEvidence = {
          ran: false,
          passed: false,
          exit_code: null,
          timed_out: false,
          duration_ms: 0,
          command_id: null,
          reason: '--no-tests was given',
          skipped: true,
        };
        writeJson(runPath(runDir, 'tests'), tests);
        writeJson(runPath(runDir, 'observation'), nothingObserved(cfg));
      }
      timeline.add('analyse', 'start');
    } catch (err) {
      if (!(err instanceof RunStopped) && !stopReasonOf(signal)) {
        // A run that failed to set up leaves nothing behind.
        await disposer.dispose();
        rmSync(staging, { recursive: true, force: true });
        throw err;
      }
    } finally {
      await disposer.dispose();
      untrack();
    }
    const stop = stopReasonOf(signal);
    if (stop) {
      ctx.log(`ci ${runId}: ${describeStop(stop)}; writing what was collected`);
      fillMissingEvidence(
        {
          runDir,
          runId,
          cfg,
          repoDir,
          agent: { adapter: 'ci', name: 'ci', model: null, metadata: {} },
          sandboxChoice: { sandbox: { kind: sandboxChoice?.sandbox.kind ?? 'local' } },
          tracer: { requested },
        },
        stop,
      );
    }
    let analysed: AnalysedRun;
    try {
      analysed = finishRun(ctx, {
        runDir,
        runId,
        started,
        stop,
        kind: 'ci',
        shownAs: finalDir,
        historyFile,
      });
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
    try {
      if (ctx.history) publishHistory(output, historyFile);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
    publishRun(output, staging, runId);
    const exitCode =
      stop?.kind === 'signal' ? signalExitCode(stop.signal) : analysed.report.result === 'PASS' ? 0 : 1;
    return {
      ...analysed,
      runDir: finalDir,
      runId,
      exitCode,
      stopped: stop !== null,
      policyEdits,
      outputMoved: !stillAtPath(output),
    };
  } finally {
    output.close();
  }
}

export function describeRange(range: CiRange): string {
  return range.mode === 'commits'
    ? `${range.base_ref}...${range.head_ref} (merge base ${range.merge_base.slice(0, 12)}, head ${range.head_sha.slice(0, 12)})`
    : `working tree against HEAD ${range.base_sha.slice(0, 12)}`;
}

function noAgent(range: CiRange, logs: AgentLogs, policy: string): AgentEvidence {
  const metadata: AgentEvidence['metadata'] =
    range.mode === 'commits'
      ? {
          ci_mode: 'commits',
          base: range.base_ref,
          head: range.head_ref,
          merge_base: range.merge_base,
          head_sha: range.head_sha,
        }
      : { ci_mode: 'working-tree', head_sha: range.base_sha };
  metadata.policy = policy;
  if (logs.notes.length > 0) {
    metadata.agent_logs = logs.notes.join('; ');
    metadata.agent_log_commands = logs.records.length;
  }
  return {
    adapter: 'ci',
    name: 'ci',
    version: null,
    model: null,
    metadata,
    outcome: { status: 'none', reason: 'no agent: CI mode judges the changes already in the checkout' },
    command_id: null,
  };
}

function nothingObserved(cfg: ResolvedConfig): Observation {
  const why = 'nothing ran: --no-tests';
  return {
    sandbox: { kind: 'local', isolated: true, detail: why },
    tracer: { requested: cfg.tracer, kind: 'off', reason: why, lost_events: 0 },
    network: { mode: cfg.network.mode },
    kernel: `${os.type()} ${os.release()}`,
    fallbacks: [],
    window: null,
  };
}

/** A path as a glob that matches only itself. */
function literalGlob(p: string): string {
  return p.replace(/[*?[\]{}()!+@\\]/g, '\\$&');
}

/**
 * Reports land in the checkout's `.agentguard/`: a `.gitignore` of `*` there keeps `git status`
 * exactly as it was, so agentguard's own output never shows as a change to the checkout. Written
 * through the held folder, never through a link planted under the name.
 */
function ignoreOutputFolder(output: HeldOutput, root: string): void {
  if (output.dir !== path.join(root, OUTPUT_FOLDER)) return;
  writeNewFileHeld(
    output,
    '.gitignore',
    '# written by agentguard: its output is not part of the project\n*\n',
  );
}

/** What the base policy reaches of the host: its repo is the checkout being judged, by design. */
function ciReach(cfg: ResolvedConfig): InputReach {
  const reach = inputReach(cfg);
  return { ...reach, files: reach.files.filter((f) => f.field !== 'repo') };
}
