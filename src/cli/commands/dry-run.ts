import { loadProfile } from '../../agents/profiles/load-profile.js';
import { formatPlanSummary, type PlanSummary, planSummary } from '../../agents/profiles/plan-summary.js';
import { promptTag } from '../../agents/profiles/render-profile.js';
import { runRedactor } from '../../analysis/secrets/run-redactor.js';
import type { ResolvedConfig } from '../../config/schema.js';
import type { RunContext } from '../../pipeline/context.js';
import { planRun, type RunOptions } from '../../pipeline/plan-run.js';
import type { CliIO } from '../io.js';

type CommandPlan = {
  adapter: string;
  name: string;
  argv: string[];
  version_argv: string[] | null;
  cwd: string;
  env_names: string[];
  model: string | null;
};

export type DryRun = {
  dry_run: true;
  config: string;
  task: { name: string; prompt: string };
  agent: PlanSummary | CommandPlan;
  sandbox: { kind: string; fallback: string | null };
  tracer: { kind: string; reason: string };
  network: { mode: string; allow: string[]; hosts: string[] };
  guard: string;
  rules: { count: number; files: string[] };
  test_command: string[];
  run_dir: string;
  /** What would make the run fail or prove less than asked, said before anything starts. */
  warnings: string[];
};

/**
 * `run --dry-run`: every check a run makes before it writes anything, then the plan, sanitised —
 * the prompt as a hash, environment variables by name only, credentials in the command redacted
 * as in every artifact of a run. Nothing is written or started.
 */
export async function dryRunCommand(
  io: CliIO,
  ctx: RunContext,
  config: ResolvedConfig,
  opts: RunOptions,
  json: boolean,
): Promise<number> {
  const p = await planRun(ctx, config, opts);
  const { cfg, agent } = p;
  const tracer = p.tracer.choice;
  const plan: DryRun = runRedactor(cfg, null).value<DryRun>({
    dry_run: true,
    config: cfg.config_path,
    task: { name: cfg.name, prompt: promptTag(cfg.prompt) },
    agent:
      opts.agent === 'agent-profile' && cfg.agent_profile
        ? planSummary(loadProfile(cfg.agent_profile), {
            prompt: cfg.prompt,
            scripted: cfg.model_script !== undefined || cfg.model_relay !== undefined,
            repoDir: p.repoDir,
            agentHome: p.agentHome,
            taskFile: p.taskFile,
            configDir: cfg.config_dir,
            hostEnv: ctx.env,
          })
        : {
            adapter: agent.adapter,
            name: agent.name,
            argv: agent.display_argv,
            version_argv: agent.version_argv ?? null,
            cwd: agent.spec.cwd,
            env_names: Object.keys(agent.spec.env).sort(),
            model: agent.model,
          },
    sandbox: {
      kind: p.sandboxChoice.sandbox.kind,
      fallback: p.sandboxChoice.fallback?.reason ?? null,
    },
    tracer: { kind: tracer.kind, reason: tracer.reason },
    network: {
      mode: cfg.network.mode,
      allow: cfg.network.allow,
      hosts: Object.keys(cfg.network.hosts),
    },
    guard: p.guardMode,
    rules: { count: p.rules.ruleset.rules.length, files: [...p.rules.ruleset.files] },
    test_command: cfg.test_command,
    run_dir: p.runDir,
    warnings: [],
  });
  plan.warnings = dryRunWarnings(plan);
  io.out(json ? JSON.stringify(plan, null, 2) : formatDryRun(plan));
  for (const warning of plan.warnings) io.err(`agentguard: warning: ${warning}`);
  return 0;
}

/** The plan's problems a user would otherwise learn of only from a failed run. */
export function dryRunWarnings(plan: Pick<DryRun, 'agent' | 'sandbox' | 'tracer'>): string[] {
  const warnings: string[] = [];
  if ('profile' in plan.agent && plan.agent.model_server === 'real') {
    const keys = plan.agent.env.filter((e) => e.source === 'pass');
    if (keys.length > 0 && !keys.some((e) => e.present)) {
      const names = keys.map((e) => e.name).join(' or ');
      warnings.push(
        `${names} is not set: agent ${plan.agent.profile} has no API key and will stop at its first model call. ` +
          `Fix: export ${keys[0]?.name}=…, or give the config a model_script to run it against a scripted model`,
      );
    }
  }
  if (plan.sandbox.fallback !== null)
    warnings.push(`the sandbox falls back to ${plan.sandbox.kind}: ${plan.sandbox.fallback}`);
  if (plan.tracer.kind === 'off')
    warnings.push(
      `no system-call tracer will run (${plan.tracer.reason}): the security rules will see no file or process evidence`,
    );
  return warnings;
}

function formatDryRun(plan: DryRun): string {
  const agent =
    'profile' in plan.agent
      ? formatPlanSummary(plan.agent)
      : [
          `agent ${plan.agent.name} (${plan.agent.adapter})`,
          `  command:   ${plan.agent.argv.join(' ')}`,
          ...(plan.agent.version_argv ? [`  version:   ${plan.agent.version_argv.join(' ')}`] : []),
          `  cwd:       ${plan.agent.cwd}`,
          `  env names: ${plan.agent.env_names.join(', ') || 'none'}`,
        ].join('\n');
  const net = plan.network;
  return [
    `dry run of ${plan.config}: nothing was written or started`,
    `task ${plan.task.name}, prompt ${plan.task.prompt}`,
    agent,
    `sandbox:   ${plan.sandbox.kind}${plan.sandbox.fallback ? ` (${plan.sandbox.fallback})` : ''}`,
    `tracer:    ${plan.tracer.kind} (${plan.tracer.reason})`,
    `network:   ${net.mode}${net.allow.length > 0 ? `, allow ${net.allow.join(', ')}` : ''}${net.hosts.length > 0 ? `, hosts ${net.hosts.join(', ')}` : ''}`,
    `guard:     ${plan.guard}; ${plan.rules.count} rules from ${plan.rules.files.length} file(s)`,
    `tests:     ${plan.test_command.join(' ')}`,
    `run dir:   ${plan.run_dir} (not created)`,
  ].join('\n');
}
