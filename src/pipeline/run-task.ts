import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type RunningModelServer, startModelServer } from '../agents/model-server/index.js';
import { loadProfile } from '../agents/profiles/load-profile.js';
import { writeRenderedFiles } from '../agents/profiles/write-files.js';
import { installSkills } from '../agents/skills/install-skills.js';
import type { AgentPlan } from '../agents/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { AgentEvidence } from '../evidence/bundle-types.js';
import { runPath } from '../evidence/layout.js';
import { writeFileAtomic, writeJson, writeJsonl } from '../evidence/write.js';
import { openHistory } from '../history/db.js';
import { packageRoot } from '../package-root.js';
import { collectDiff } from '../workspace/diff.js';
import { prepareWorkspace } from '../workspace/prepare.js';
import { probeVersion, runAgent } from './agent-phase.js';
import { type AnalysedRun, analyseRun } from './analyse-run.js';
import { CommandLog } from './commands.js';
import type { RunContext } from './context.js';
import { ObservationWindow } from './observe-window.js';
import { planRun, type RunOptions } from './plan-run.js';
import { saveRunRules } from './rules.js';
import { sealEvidence } from './seal-evidence.js';
import { runTests } from './test-phase.js';
import { Timeline } from './timeline.js';

const MAX_PATCH_BYTES = 32 * 1024 * 1024;

export type { RunOptions } from './plan-run.js';
export type RunResult = AnalysedRun & { runDir: string; exitCode: 0 | 1 };

/**
 * One run of one agent on one task. Collect evidence once (prepare, agent, diff, tests), then
 * analyse it from disk. Config and setup problems found before anything is written throw
 * ConfigError/SetupError; anything that goes wrong with the agent or the tests is evidence.
 */
export async function runTask(ctx: RunContext, config: ResolvedConfig, opts: RunOptions): Promise<RunResult> {
  const planned = await planRun(ctx, config, opts);
  const { cfg, started, runId, runDir, repoDir, homeDir, homeInside, taskFile } = planned;
  const { sandboxChoice, trajectory, rules, guardMode, agent: plan } = planned;

  mkdirSync(path.join(runDir, 'evidence'), { recursive: true });
  saveRunRules(runDir, rules);
  mkdirSync(homeDir, { recursive: true });
  writeRenderedFiles(plan.files ?? []);
  writeJson(runPath(runDir, 'config'), cfg);
  writeFileAtomic(taskFile, cfg.prompt);
  const timeline = new Timeline(runPath(runDir, 'timeline'));
  const commands = new CommandLog(runPath(runDir, 'commands'));

  timeline.add('prepare', 'copy-template', cfg.repo);
  let workspace: Awaited<ReturnType<typeof prepareWorkspace>>;
  try {
    workspace = await prepareWorkspace({
      runId,
      runDir,
      template: cfg.repo,
      configPath: cfg.config_path,
      // Skills that go into the workspace are part of the baseline, not the agent's diff.
      afterCopy: () => {
        if (!cfg.skills || !cfg.agent_profile) return;
        const skills = installSkills(cfg.skills, loadProfile(cfg.agent_profile), {
          repoDir,
          homeDir,
          homeInside,
          configPath: cfg.config_path,
        });
        writeJson(runPath(runDir, 'skills'), skills);
      },
    });
  } catch (err) {
    // Nothing of value was written yet: leave no half-made run behind.
    rmSync(runDir, { recursive: true, force: true });
    throw err;
  }
  const { harness_git_dir, baseline_ignored, ...workspaceEvidence } = workspace;
  writeJson(runPath(runDir, 'workspace'), { ...workspaceEvidence, baseline_ignored });
  timeline.add('prepare', 'baseline', workspace.baseline_sha);
  ctx.log(`run ${runId}: ${cfg.name} with agent ${plan.name}`);

  const model: RunningModelServer | null = trajectory
    ? await startModelServer({ script: trajectory, recordFile: runPath(runDir, 'model') })
    : null;
  const harnessHosts =
    model && plan.model_endpoint ? { [plan.model_endpoint.host]: `127.0.0.1:${model.port}` } : {};
  let window: ObservationWindow;
  try {
    window = await ObservationWindow.open({
      cfg,
      runId,
      runDir,
      repoDir,
      homeDir,
      homeInside,
      visible: [...visibleFolders(cfg, plan), path.dirname(taskFile)],
      sandboxChoice,
      ...(opts.tracer ? { tracer: opts.tracer } : {}),
      timeline,
      log: ctx.log,
      ...(guardMode !== 'off' ? { guard: { mode: guardMode, rules: rules.ruleset } } : {}),
      harnessHosts,
    });
  } catch (err) {
    await model?.server.stop();
    throw err;
  }
  // The version probe runs in the sandbox (a real agent may write its HOME even for --version),
  // but not under the tracer: it is setup, not behaviour.
  const version = await probeVersion(plan, cfg, commands, (spec) => window.sandbox.wrap(spec));
  const sandbox = window.sandbox;
  let agent: AgentEvidence;
  let closed: Awaited<ReturnType<ObservationWindow['close']>>;
  try {
    agent = await runAgent({
      plan,
      cfg,
      wrap: (spec) => window.wrapAgent(spec),
      onAgentStart: (pgid) =>
        window.guard?.armed(() => {
          try {
            process.kill(-pgid, 'SIGKILL');
          } catch {
            // already gone
          }
        }),
      wrapped: sandbox.kind !== 'local' || window.traced,
      commands,
      timeline,
      logFile: runPath(runDir, 'agentLog'),
      version,
    });
  } finally {
    // Events collected up to a crash or timeout are evidence too.
    closed = await window.close(plan.spec.argv);
    writeJsonl(runPath(runDir, 'syscalls'), closed.syscalls);
    writeJsonl(runPath(runDir, 'network'), closed.network);
    writeJson(runPath(runDir, 'observation'), closed.observation);
    await model?.server.stop();
  }
  const guard = window.guard;
  if (guard?.stoppedAgent) {
    const first = guard.incident(runId).first_critical;
    agent = {
      ...agent,
      outcome: {
        status: 'blocked',
        reason: `stopped by the live guard after critical alert ${first?.alert.rule}`,
      },
    };
    timeline.add('agent', 'guard-stopped', first?.alert.rule);
  }
  if (guard?.writeIncident(path.join(runDir, 'guard', 'incident.json'), runId)) {
    timeline.add('observe', 'incident', `${guard.alerts.length} live alerts`);
  }
  writeJson(runPath(runDir, 'agent'), agent);

  // The diff is taken before the tests run, so files the tests write are not counted as the agent's.
  timeline.add('collect', 'diff');
  const { diff, patch } = collectDiff({
    repoDir,
    harnessGitDir: harness_git_dir,
    baselineSha: workspace.baseline_sha,
    baselineIgnored: baseline_ignored,
    maxPatchBytes: MAX_PATCH_BYTES,
  });
  writeJson(runPath(runDir, 'diff'), diff);
  writeFileAtomic(runPath(runDir, 'patch'), patch);

  const testEnv = { ...plan.spec.env };
  const tests = await runTests({ cfg, repoDir, env: testEnv, sandbox, commands, timeline });
  writeJson(runPath(runDir, 'tests'), tests);
  await sandbox.stop();
  timeline.add('analyse', 'start');
  writeJson(runPath(runDir, 'run'), {
    run_id: runId,
    started_at: started.toISOString(),
    finished_at: ctx.now().toISOString(),
  });

  sealEvidence(runDir);
  const analysed = analyseRun(runDir);
  if (ctx.history) {
    const db = openHistory(path.join(ctx.outputDir, 'history.db'));
    try {
      db.recordRun(analysed.report, { report_json: analysed.reportJson, report_md: analysed.reportMd });
    } finally {
      db.close();
    }
  }
  return { ...analysed, runDir, exitCode: analysed.report.result === 'PASS' ? 0 : 1 };
}

/** Host folders the sandboxed agent must be able to read even where the sandbox hides their parents. */
function visibleFolders(cfg: ResolvedConfig, plan: AgentPlan): string[] {
  const dirs = [packageRoot(), cfg.config_dir, path.dirname(path.dirname(process.execPath))];
  if (cfg.solution) dirs.push(cfg.solution);
  const program = plan.spec.argv[0] ?? '';
  if (path.isAbsolute(program)) dirs.push(path.dirname(program));
  dirs.push(...(plan.visible ?? []));
  return [...new Set(dirs)];
}
