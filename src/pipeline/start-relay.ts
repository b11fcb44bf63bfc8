import { readFileSync } from 'node:fs';
import type { ModelRelay } from '../agents/model-relay/relay.js';
import type { AgentPlan } from '../agents/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { SetupError } from '../errors.js';

/** Certificates (PEM) the relay trusts beside the system's, from the operator's environment. */
export const RELAY_CA_ENV = 'AGENTGUARD_RELAY_CA';

export type RunningRelay = { relay: ModelRelay; port: number; realKey: string };

/**
 * The run's model relay when the config asks for one: the real key read from agentguard's own
 * environment (the variable model_relay.key_env names), the stand-in the plan gave the agent, the
 * budget and prices. Null without model_relay.
 */
export async function startRelay(
  cfg: ResolvedConfig,
  plan: Pick<AgentPlan, 'model_endpoint'>,
  recordFile: string,
  env: NodeJS.ProcessEnv,
): Promise<RunningRelay | null> {
  const spec = cfg.model_relay;
  if (!spec) return null;
  const standIn = plan.model_endpoint?.key;
  const realKey = env[spec.key_env];
  if (!standIn || !realKey)
    throw new SetupError(
      `the model relay has no ${realKey ? 'stand-in key for the agent' : `key: ${spec.key_env} is not set in agentguard's environment`}. Fix: export ${spec.key_env} where agentguard runs, with an agent_profile that runs offline`,
    );
  const caFile = env[RELAY_CA_ENV];
  let ca: string | undefined;
  if (caFile)
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch (err) {
      throw new SetupError(
        `${RELAY_CA_ENV} names ${caFile}, which cannot be read. Fix: point it at a PEM file`,
        {
          cause: err,
        },
      );
    }
  const { ModelRelay } = await import('../agents/model-relay/relay.js');
  const relay = new ModelRelay({
    provider: spec.provider,
    realKey,
    standIn,
    ...(spec.model ? { model: spec.model } : {}),
    ...(cfg.budget ? { budget: cfg.budget } : {}),
    ...(cfg.pricing ? { pricing: cfg.pricing } : {}),
    recordFile,
    ...(ca ? { ca } : {}),
  });
  const { port } = await relay.start();
  return { relay, port, realKey };
}
