import type { ResolvedConfig } from '../config/schema.js';
import type { SpawnSpec } from '../exec/types.js';

export const AGENT_NAMES = [
  'mock-solve',
  'mock-tamper-tests',
  'mock-out-of-scope',
  'mock-secret',
  'mock-noop',
  'mock-explore',
  'local-command',
  'agent-command',
  'agent-profile',
] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export type AgentContext = {
  config: ResolvedConfig;
  runId: string;
  repoDir: string;
  /** The prompt written to a file, for agents that take `{task_file}`. */
  taskFile: string;
  /** The agent's HOME for this run as it sees it (a fresh folder, never the user's own). */
  agentHome: string;
  /** The same HOME on the host, where the harness writes the agent's config files. */
  hostHome: string;
  /** Environment of the harness, from which allowed variable names are passed through. */
  hostEnv: NodeJS.ProcessEnv;
};

/** What to start for the agent; the pipeline wraps it in the sandbox and tracer. */
export type AgentPlan = {
  adapter: AgentName;
  name: string;
  spec: SpawnSpec;
  /** Argv for people and reports: the prompt and secrets replaced. */
  display_argv: string[];
  version_argv?: string[];
  model: string | null;
  metadata: Record<string, string | number | boolean | null>;
  /** Config files to write before the agent starts (host paths; see writeRenderedFiles). */
  files?: { path: string; agent_path: string; content: string }[];
  /** Host folders the sandbox must show read-only (the agent's install in agentguard's cache). */
  visible?: string[];
  /** The agent's own state files and folders, absolute as it sees them (for $STATE_DIRS). */
  state_dirs?: string[];
  /** Hosts of the agent vendor's own service (profile `vendor_hosts`), kept with its identity for the rules' $VENDOR_HOSTS. */
  vendor_hosts?: string[];
  /** The arguments that turn off the agent's own permission prompts (profile `prompt_off`), for the agent-exit check. */
  prompt_off?: string[];
  /** A scripted model endpoint this plan points the agent at: the name it uses and the API it speaks. */
  model_endpoint?: {
    host: string;
    api: string;
    /** Through the relay: the run's stand-in key, the only key the relay accepts from the agent. */
    key?: string;
  };
};

export type PlanResult =
  | { ok: true; plan: AgentPlan }
  | { ok: false; field: string; message: string; fix: string };

export interface AgentAdapter {
  readonly name: AgentName;
  readonly description: string;
  plan(ctx: AgentContext): PlanResult;
}
