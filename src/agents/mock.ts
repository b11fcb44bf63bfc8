import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { agentEnv } from './env.js';
import type { AgentAdapter, AgentContext, AgentName, PlanResult } from './types.js';

/** The compiled mock agent script; when running from sources (tests), the built copy in dist/. */
export function mockAgentScript(): string {
  const beside = fileURLToPath(new URL('./mock-agent.js', import.meta.url));
  if (existsSync(beside)) return beside;
  return fileURLToPath(new URL('../../dist/agents/mock-agent.js', import.meta.url));
}

const BEHAVIOURS = {
  'mock-solve': ['solve', 'applies the reference solution'],
  'mock-tamper-tests': ['tamper-tests', 'applies the solution, then edits a test file'],
  'mock-out-of-scope': ['out-of-scope', 'applies the solution, then writes outside allowed_paths'],
  'mock-secret': ['secret', 'applies the solution, then adds a file with secret-looking content'],
  'mock-noop': ['noop', 'changes nothing'],
  'mock-explore': ['explore', 'looks around with a random subset of commands, then applies the solution'],
} as const satisfies Partial<Record<AgentName, readonly [string, string]>>;

type MockName = keyof typeof BEHAVIOURS;

function mockAdapter(name: MockName): AgentAdapter {
  const [behaviour, description] = BEHAVIOURS[name];
  return {
    name,
    description: `deterministic mock agent: ${description}`,
    plan(ctx: AgentContext): PlanResult {
      const argv = [process.execPath, mockAgentScript(), '--behaviour', behaviour];
      if (behaviour !== 'noop') {
        if (!ctx.config.solution) {
          return {
            ok: false,
            field: 'solution',
            message: `the mock agent '${name}' needs the task's reference solution, and none is configured`,
            fix: 'add `solution: <folder>` with the files the fix changes, or use another agent',
          };
        }
        argv.push('--solution', ctx.config.solution);
      }
      argv.push('--test-paths', JSON.stringify(ctx.config.test_paths));
      return {
        ok: true,
        plan: {
          adapter: name,
          name,
          spec: { argv, cwd: ctx.repoDir, env: agentEnv(ctx) },
          display_argv: ['mock-agent', '--behaviour', behaviour],
          // The mock agents copy the reference solution: only they are shown it (run-task no longer
          // shows any agent the task's solution folder).
          ...(behaviour !== 'noop' && ctx.config.solution ? { visible: [ctx.config.solution] } : {}),
          model: null,
          metadata: { deterministic: true },
        },
      };
    },
  };
}

export const MOCK_AGENTS: Record<MockName, AgentAdapter> = {
  'mock-solve': mockAdapter('mock-solve'),
  'mock-tamper-tests': mockAdapter('mock-tamper-tests'),
  'mock-out-of-scope': mockAdapter('mock-out-of-scope'),
  'mock-secret': mockAdapter('mock-secret'),
  'mock-noop': mockAdapter('mock-noop'),
  'mock-explore': mockAdapter('mock-explore'),
};
