import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { RunningModelServer } from '../agents/model-server/index.js';
import { loadProfile } from '../agents/profiles/load-profile.js';
import { writeRenderedFiles } from '../agents/profiles/write-files.js';
import { installSkills } from '../agents/skills/install-skills.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { AgentEvidence } from '../evidence/bundle-types.js';
import { runPath } from '../evidence/layout.js';
import { writeFileAtomic, writeJson, writeJsonl } from '../evidence/write.js';
import { Disposer, trackDisposer } from '../exec/disposer.js';
import {
  describeStop,
  RunStopped,
  type StopReason,
  stopReasonOf,
  throwIfStopped,
} from '../exec/interrupt.js';
import { noteRun } from '../exec/owner-registry.js';
import { safeTimeout } from '../exec/safe-timer.js';
import { signalExitCode } from '../exec/shutdown.js';
import { checkHistory } from '../history/db.js';
import { prefetchAgentguardSource } from '../provenance/git-state.js';
import { chownTree, claimRunUserFor, closeToRunUsers } from '../sandbox/run-user.js';
import type { SandboxPlaces } from '../sandbox/types.js';
import { collectDiff } from '../workspace/diff.js';
import { prepareWorkspace, rebaseline, workspaceEvidence } from '../workspace/prepare.js';
import { probeVersion, runAgent } from './agent-phase.js';
import type { AnalysedRun } from './analyse-run.js';
import { CommandLog } from './commands.js';
import type { RunContext } from './context.js';
import { finishRun } from './finish-run.js';
import { graderOnlyMatcher, gradingOf } from './grading.js';
import { installDependencies } from './install-dependencies.js';
import { ObservationWindow } from './observe-window.js';
import { ownCredentials } from './outbound-scan.js';
import { fillMissingEvidence } from './partial-evidence.js';
import { markPhase } from './phase-marks.js';
import { planRun, type RunOptions, type RunPlan } from './plan-run.js';
import { ProtectedStateWatch } from './protected-state.js';
import { saveRunRules } from './rules.js';
import { scanWrittenBytes } from './scan-written.js';
import { corepackClients, writeCorepackShims } from './setup-path.js';
import { runSetup } from './setup-phase.js';
import { startRelay } from './start-relay.js';
import { inFolderAt, runTestCommand, runTests, testArgv } from './test-phase.js';
import { Timeline } from './timeline.js';

const MAX_PATCH_BYTES = 32 * 1024 * 1024;

export type { RunOptions } from './plan-run.js';
export type RunResult = AnalysedRun & { runDir: string; exitCode: number };

/**
 * One run of one agent on one task. Collect evidence once (prepare, agent, diff, tests), then
 * analyse it from disk. Config and setup problems throw ConfigError/SetupError, and a run whose
 * setup failed leaves no folder behind; anything that goes wrong with the agent or the tests is
 * evidence. Every resource the run acquires is released on every path (see Disposer). A run ended
 * from outside — `ctx.signal` or `run_timeout_seconds` — writes what it collected and is judged
 * ERROR.
 */
export async function runTask(ctx: RunContext, config: ResolvedConfig, opts: RunOptions): Promise<RunResult> {
  // Which agentguard seals the run is asked of git now, beside the run, not at its end.
  void prefetchAgentguardSource();
  markPhase('run:start');
  const planned = await planRun(ctx, config, opts);
  markPhase('run:planned');
  const historyFile = path.join(ctx.outputDir, 'history.db');
  if (ctx.history) {
    // A corrupt history is found now, not after the agent has run for its full time.
    ctx.fault?.('history');
    checkHistory(historyFile);
    markPhase('run:history-checked');
  }
  const controller = new AbortController();
  const stopRun = (reason: StopReason) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onOuterStop = () => stopRun(stopReasonOf(ctx.signal) ?? { kind: 'signal', signal: 'SIGTERM' });
  ctx.signal?.addEventListener('abort', onOuterStop, { once: true });
  if (ctx.signal?.aborted) onOuterStop();
  const limit = planned.cfg.run_timeout_seconds;
  const runLimit =
    limit === undefined
      ? null
      : safeTimeout(() => stopRun({ kind: 'run-timeout', seconds: limit }), limit * 1000);
  const disposer = new Disposer();
  const untrack = trackDisposer(disposer);
  noteRun(planned.runId);
  try {
    return await collectAndAnalyse(ctx, planned, controller.signal, disposer, opts);
  } finally {
    runLimit?.clear();
    ctx.signal?.removeEventListener('abort', onOuterStop);
    await disposer.dispose();
    untrack();
  }
}

async function collectAndAnalyse(
  ctx: RunContext,
  planned: RunPlan,
  signal: AbortSignal,
  disposer: Disposer,
  opts: RunOptions,
): Promise<RunResult> {
  const { batch, mutateWorkspace } = opts;
  const { cfg, started, runId, runDir, repoDir, hostHome, agentHome, taskFile } = planned;
  const { sandboxChoice, trajectory, rules, guardMode, agent: plan } = planned;
  // Where the test runner writes its report of the tests by name: a name the agent cannot know.
  const reportFile = path.join(repoDir, `.agentguard-tests-${randomBytes(8).toString('hex')}.report`);
  // Until the agent starts, a failure is a setup failure and the folder holds nothing of value.
  let agentStarting = false;
  let stoppedWithin: StopReason | null = null;
  try {
    mkdirSync(path.join(runDir, 'evidence'), { recursive: true });
    // The output folder itself only when it is agentguard's own: `--output-dir /tmp` must stay as it is.
    const own = path.basename(ctx.outputDir) === '.agentguard' ? [ctx.outputDir] : [];
    closeToRunUsers([...own, path.dirname(runDir), runDir]);
    saveRunRules(runDir, rules);
    mkdirSync(hostHome, { recursive: true });
    writeRenderedFiles(plan.files ?? []);
    writeJson(runPath(runDir, 'config'), cfg);
    writeFileAtomic(taskFile, cfg.prompt);
    writeFileAtomic(runPath(runDir, 'commands'), '');
    const timeline = new Timeline(runPath(runDir, 'timeline'), ctx.progress);
    const commands = new CommandLog(runPath(runDir, 'commands'), signal);

    timeline.add('prepare', 'copy-template', cfg.repo);
    ctx.fault?.('prepare');
    const graderOnly = graderOnlyMatcher(cfg);
    const prepared = await prepareWorkspace({
      runId,
      runDir,
      template: cfg.repo,
      configPath: cfg.config_path,
      skip: ctx.outputDir,
      // Skills that go into the workspace are part of the baseline, not the agent's diff.
      afterCopy: () => {
        if (!cfg.skills || !cfg.agent_profile) return;
        const skills = installSkills(cfg.skills, loadProfile(cfg.agent_profile), {
          repoDir,
          hostHome,
          agentHome,
          configPath: cfg.config_path,
        });
        writeJson(runPath(runDir, 'skills'), skills);
      },
      ...(graderOnly ? { graderOnly } : {}),
    });
    let workspace = prepared;
    const saveWorkspace = () => {
      writeJson(runPath(runDir, 'workspace'), workspaceEvidence(workspace));
    };
    saveWorkspace();
    timeline.add('prepare', 'baseline', workspace.baseline_sha);
    if (mutateWorkspace) {
      mutateWorkspace(repoDir);
      timeline.add('prepare', 'mutation', 'a planted change, made by the harness after the baseline');
    }
    ctx.log(`run ${runId}: ${cfg.name} with agent ${plan.name}`);
    throwIfStopped(signal);

    ctx.fault?.('model-server');
    if (opts.replay) writeJson(runPath(runDir, 'replay'), opts.replay.source);
    const model: RunningModelServer | null = trajectory
      ? await (await import('../agents/model-server/index.js')).startModelServer({
          script: trajectory,
          recordFile: runPath(runDir, 'model'),
        })
      : null;
    const relay = await startRelay(cfg, plan, runPath(runDir, 'model'), ctx.env);
    const stopModel = model
      ? disposer.add('model server', () => model.server.stop())
      : relay
        ? disposer.add('model relay', () => relay.relay.stop())
        : null;
    const port = model?.port ?? relay?.port;
    const harnessHosts =
      port !== undefined && plan.model_endpoint ? { [plan.model_endpoint.host]: `127.0.0.1:${port}` } : {};
    throwIfStopped(signal);
    // The view was checked when the run was planned: the run user can read every path it shows.
    const view = planned.view;
    const user = claimRunUserFor(sandboxChoice.sandbox, disposer);
    // The workspace and HOME are the run user's (what the harness wrote there since, too).
    const handOver = () => {
      if (user) for (const dir of [repoDir, hostHome]) chownTree(dir, user);
    };
    // Where the run's sandbox sessions find their folders: the agent's, and setup's own.
    const places: SandboxPlaces = {
      runId,
      runDir,
      repoDir,
      hostHome,
      agentHome,
      visible: [...view.visible, path.dirname(taskFile)],
      writable: view.writable,
      withheld: view.withheld,
      ...(user ? { user } : {}),
    };
    const window = await ObservationWindow.open({
      cfg,
      ...places,
      ...(cfg.solution ? { solutionShown: view.solutionShown } : {}),
      sandboxChoice,
      tracer: planned.tracer,
      timeline,
      log: ctx.log,
      ...(guardMode !== 'off'
        ? {
            guard: {
              mode: guardMode,
              rules: rules.ruleset,
              ...(plan.vendor_hosts ? { vendorHosts: plan.vendor_hosts } : {}),
            },
          }
        : {}),
      harnessHosts,
      ownCredentials: ownCredentials(plan),
      ...(relay ? { harnessSecrets: [{ kind: 'relay-key', token: relay.realKey }] } : {}),
      disposer,
      signal,
      ...(ctx.fault ? { fault: ctx.fault } : {}),
    });
    handOver();
    throwIfStopped(signal);
    agentStarting = true;
    // The version probe runs in the sandbox (a real agent may write its HOME even for --version),
    // but not under the tracer: it is setup, not behaviour.
    const version = await probeVersion(plan, cfg, commands, (spec) => window.sandbox.wrap(spec));
    let agent: AgentEvidence;
    let agentExitedAt: number | null = null;
    let agentWritten: AgentEvidence | null = null;
    // The final-state backstop: HOME and the workspace's git folder, recorded around the agent.
    let protectedState: ProtectedStateWatch | null = null;
    try {
      try {
        throwIfStopped(signal);
        if (cfg.setup || cfg.setup_command) {
          // In the sandbox, not under the tracer: outside the monitoring window. The declared
          // installs first, so that setup_command can use what they installed. What setup writes is
          // the agent's starting point, so the baseline is taken again after it.
          const env = { ...plan.spec.env };
          await installDependencies({
            cfg,
            sandboxChoice,
            cacheRoot: path.join(ctx.outputDir, 'cache', 'dependencies'),
            ...places,
            env,
            commands,
            timeline,
            disposer,
          });
          writeCorepackShims(hostHome, corepackClients(cfg, ctx.env.PATH));
          throwIfStopped(signal);
          await runSetup({
            cfg,
            repoDir,
            env,
            wrap: (spec) => window.sandbox.wrap(spec),
            commands,
            timeline,
          });
          workspace = await rebaseline(workspace);
          handOver();
          saveWorkspace();
          timeline.add('prepare', 'baseline', workspace.baseline_sha);
          throwIfStopped(signal);
        }
        protectedState = new ProtectedStateWatch(places, runPath(runDir, 'protectedState'), writeJson);
        window.guard?.knowProtected(protectedState.files);
        agent = await runAgent({
          plan,
          cfg,
          wrap: (spec) => window.wrapAgent(spec),
          onAgentStart: (pgid) => {
            window.guard?.armed(() => {
              try {
                process.kill(-pgid, 'SIGKILL');
                return true;
              } catch {
                return false; // already gone
              }
            });
            ctx.fault?.('agent');
          },
          wrapped: window.wrapped,
          commands,
          timeline,
          logFile: runPath(runDir, 'agentLog'),
          version,
          isWrapper: (argv) => window.isWrapper(argv),
          guardStopped: () => window.guard?.stoppedAgent === true,
          stopReason: () => stopReasonOf(signal),
          bridgeToken: window.bridgeToken,
        });
        agentExitedAt = Date.now();
      } finally {
        window.guard?.disarm();
        protectedState?.afterAgent();
        writeJsonl(runPath(runDir, 'network'), await window.endAgent());
        await stopModel?.release();
      }
      const guard = window.guard;
      if (guard?.stoppedAgent) {
        const enforcement = guard.enforcement(agentExitedAt);
        if (enforcement) agent = { ...agent, guard: enforcement };
        const first = guard.incident(runId).first_critical;
        const at = first ? `${(first.detected_ms / 1000).toFixed(1)} s` : 'an unknown time';
        agent = {
          ...agent,
          outcome: {
            status: 'stopped',
            by: 'guard',
            reason: `stopped by the guard at ${at} after rule ${first?.alert.rule ?? 'unknown'}`,
          },
        };
        timeline.add('agent', 'guard-stopped', first?.alert.rule);
      }
      writeJson(runPath(runDir, 'agent'), agent);
      agentWritten = agent;

      // The diff is taken before the tests run, so files the tests write are not counted as the agent's.
      timeline.add('collect', 'diff');
      const { diff, patch } = await collectDiff({
        repoDir,
        harnessGitDir: workspace.harness_git_dir,
        baselineSha: workspace.baseline_sha,
        baselineIgnored: workspace.baseline_ignored,
        baselineIgnoredHashes: workspace.ignored_hashes,
        maxPatchBytes: MAX_PATCH_BYTES,
      });
      diff.written_scan = scanWrittenBytes(cfg, runDir, repoDir, diff);
      writeJson(runPath(runDir, 'diff'), diff);
      writeFileAtomic(runPath(runDir, 'patch'), patch);
      throwIfStopped(signal);

      const testEnv = { ...plan.spec.env };
      handOver();
      ctx.fault?.('tests');
      const phase = { cfg, repoDir, env: testEnv, commands, timeline, reportFile };
      const tests = await runTests({
        ...phase,
        wrap: (spec) => {
          protectedState?.beforeTests();
          return window.wrapTests(spec);
        },
        grading: gradingOf(
          cfg,
          workspace,
          {
            cacheDir: path.join(ctx.outputDir, 'cache', 'test-baseline'),
            // In the sandbox, not under the tracer: learning the task's tests is setup, not behaviour.
            runIn: (dir) =>
              inFolderAt(dir, repoDir, () =>
                runTestCommand({ ...phase, wrap: (spec) => window.sandbox.wrap(spec) }, 'baseline-tests'),
              ),
          },
          (dir) => {
            if (user) chownTree(dir, user);
          },
        ),
      });
      writeJson(runPath(runDir, 'tests'), tests);
      protectedState?.afterTests();
    } finally {
      // Events collected up to a crash, timeout or interrupt are evidence too.
      const closed = await window.close(plan.spec.argv, testArgv(cfg, reportFile));
      writeJsonl(runPath(runDir, 'syscalls'), closed.syscalls);
      writeJsonl(runPath(runDir, 'testSyscalls'), closed.testSyscalls);
      writeJson(runPath(runDir, 'observation'), closed.observation);
      // After the tracer's last flush, so the guard has seen every event of the agent's tree.
      if (window.guard?.writeIncident(path.join(runDir, 'guard', 'incident.json'), runId)) {
        timeline.add('observe', 'incident', `${window.guard.alerts.length} live alerts`);
      }
      // A critical alert that arrived after the agent had exited could stop nothing: agent.json says so.
      const late = agentWritten && !agentWritten.guard ? window.guard?.enforcement(agentExitedAt) : null;
      if (agentWritten && late) {
        writeJson(runPath(runDir, 'agent'), { ...agentWritten, guard: late });
        timeline.add(
          'agent',
          'guard-too-late',
          `${late.rule}: ${late.exited_before_ms} ms after the agent exited`,
        );
      }
    }
    timeline.add('analyse', 'start');
  } catch (err) {
    // A run stopped from inside (a setup step failed) carries its reason; one stopped from
    // outside has it on the signal.
    if (err instanceof RunStopped && !stopReasonOf(signal)) stoppedWithin = err.reason;
    if (!(err instanceof RunStopped) && !stopReasonOf(signal)) {
      if (!agentStarting) {
        // A failed setup leaves nothing behind: release what was acquired, then the folder.
        await disposer.dispose();
        rmSync(runDir, { recursive: true, force: true });
      }
      throw err;
    }
  }
  const stop = stopReasonOf(signal) ?? stoppedWithin;
  if (stop) {
    ctx.log(`run ${runId}: ${describeStop(stop)}; writing what was collected`);
    // Release the sandbox and tracer before analysing: the run is over.
    await disposer.dispose();
    fillMissingEvidence(planned, stop);
  }
  const analysed = finishRun(ctx, { runDir, runId, started, stop, kind: 'run', ...(batch ? { batch } : {}) });
  return { ...analysed, runDir, exitCode: exitCodeOf(analysed.report.result, stop) };
}

/**
 * 0 pass, 1 failed or ended by its time limit, 2 when the harness's own machinery failed, 128+N when
 * a signal N ended it (130 INT, 143 TERM).
 */
function exitCodeOf(result: string, stop: StopReason | null): number {
  if (stop?.kind === 'signal') return signalExitCode(stop.signal);
  // agentguard's own machinery failed: like bad input, nothing was learnt about the agent.
  if (stop?.kind === 'setup-failed' && stop.harness) return 2;
  return result === 'PASS' ? 0 : 1;
}
