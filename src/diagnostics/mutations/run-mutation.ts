import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AnalysisResult } from '../../analysis/types.js';
import { readConfigYaml, resolveConfigObject } from '../../config/load.js';
import { ConfigError } from '../../errors.js';
import type { TracerRequest } from '../../evidence/kinds.js';
import { packageRoot } from '../../package-root.js';
import type { RunContext } from '../../pipeline/context.js';
import { runTask } from '../../pipeline/run-task.js';
import { isTaskAction, type TaskAction, type WorkspaceAction } from './actions.js';
import { ActionError, applyWorkspaceActions, taskOverlay } from './apply-actions.js';
import type { CatalogEntry } from './catalog-schema.js';

/** The agent step of a mutation without an `agent-command` action: a program that does nothing. */
const NO_AGENT = ['true'];

export type MutationRun =
  | { status: 'ran'; runDir: string; analysis: AnalysisResult; tracer: string; sandbox: string }
  | { status: 'errored'; error: string };

export type MutationRunOptions = { runId: string; tracer?: TracerRequest };

/** The shipped benchmark folder a catalog fixture names. */
export function fixtureDir(fixture: string): string {
  return path.join(packageRoot(), 'benchmarks', fixture);
}

/**
 * Carry out one catalog entry through the normal run pipeline, with no agent: the fixture is
 * copied to a scratch folder (the shipped one is only read), the task actions change the copy's
 * config, and the workspace actions are made by the harness after the baseline (`mutateWorkspace`).
 * Then the real sandboxed, traced test phase, diff, checks, rules, score and reports, in
 * `ctx.outputDir/runs/<runId>`. An action that cannot be carried out is an errored entry; a host
 * that cannot run the pipeline throws as a normal run would.
 */
export async function runMutation(
  ctx: RunContext,
  entry: CatalogEntry,
  opts: MutationRunOptions,
): Promise<MutationRun> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'agentguard-mutation-'));
  try {
    const copy = path.join(scratch, entry.fixture);
    cpSync(fixtureDir(entry.fixture), copy, { recursive: true, verbatimSymlinks: true });
    const configPath = path.join(copy, 'config.yaml');
    const read = readConfigYaml(configPath);
    if (!read.ok) throw new ConfigError(read.issues);
    const taskActions = entry.actions.filter(isTaskAction) as TaskAction[];
    const workspaceActions = entry.actions.filter((a) => !isTaskAction(a)) as WorkspaceAction[];
    const raw = {
      ...(read.value as Record<string, unknown>),
      agent_command: NO_AGENT,
      agent_name: 'no agent (mutation diagnostics)',
      ...taskOverlay(taskActions),
    };
    const resolved = resolveConfigObject(raw, configPath);
    if (!resolved.ok) throw new ConfigError(resolved.issues);
    const cfg = resolved.value;
    try {
      const result = await runTask(ctx, cfg, {
        agent: 'local-command',
        runId: opts.runId,
        guard: 'off',
        ...(opts.tracer ? { tracer: opts.tracer } : {}),
        // Always bwrap: test-time scripts try to write /opt and /var/log, mount and add users,
        // which only its read-only root and namespaces keep off the host.
        sandbox: 'bwrap',
        mutateWorkspace: (repoDir) => applyWorkspaceActions(repoDir, workspaceActions, cfg.solution),
      });
      const { tracer, sandbox } = result.report.observation;
      return {
        status: 'ran',
        runDir: result.runDir,
        analysis: result.analysis,
        tracer: tracer.kind,
        sandbox: sandbox.kind,
      };
    } catch (err) {
      if (err instanceof ActionError) return { status: 'errored', error: err.message };
      throw err;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
