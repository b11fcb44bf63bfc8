import { COMMAND_AGENTS } from './command.js';
import { MOCK_AGENTS } from './mock.js';
import { PROFILE_AGENT } from './profile-agent.js';
import { AGENT_NAMES, type AgentAdapter, type AgentName } from './types.js';

/** Every agent adapter by name; the union type makes the compiler demand one per name. */
export const AGENTS: Record<AgentName, AgentAdapter> = {
  ...MOCK_AGENTS,
  ...COMMAND_AGENTS,
  'agent-profile': PROFILE_AGENT,
};

export function isAgentName(name: string): name is AgentName {
  return (AGENT_NAMES as readonly string[]).includes(name);
}

export { AGENT_NAMES, type AgentName } from './types.js';
