import { resolveAgentBin } from '../agents/install/resolve-bin.js';
import { listBuiltinProfiles, loadProfileResult } from '../agents/profiles/load-profile.js';
import type { Endpoint } from '../agents/profiles/schema.js';
import type { AgentChoice } from './render-config.js';

/** The host each model API lives at, for the allow list of a run with a real agent. */
const API_HOSTS: Record<Endpoint, string> = {
  responses: 'api.openai.com',
  chat: 'api.openai.com',
  anthropic: 'api.anthropic.com',
  gemini: 'generativelanguage.googleapis.com',
};

/**
 * The agent `init` names: the first built-in profile whose CLI is installed (agentguard's cache at
 * the pinned version, or on PATH for a profile without a package), else none, listing the choices.
 */
export function chooseAgent(env: Readonly<Record<string, string | undefined>> = process.env): AgentChoice {
  const names = listBuiltinProfiles();
  const installed: { name: string; api_host: string | null }[] = [];
  for (const name of names) {
    const loaded = loadProfileResult(name);
    if (!loaded.ok) continue;
    if (resolveAgentBin(loaded.value, { env }).ok) {
      const endpoint = loaded.value.endpoint;
      installed.push({ name, api_host: endpoint ? API_HOSTS[endpoint] : null });
    }
  }
  const [first, ...rest] = installed;
  if (first === undefined) return { kind: 'none', choices: names };
  return { kind: 'profile', name: first.name, api_host: first.api_host, others: rest.map((a) => a.name) };
}
