import { SetupError } from '../errors.js';
import type { SandboxKind } from '../evidence/types.js';
import type { Sandbox } from './types.js';

export type SandboxChoice = {
  sandbox: Sandbox;
  fallback?: { component: 'sandbox'; wanted: string; used: string; reason: string };
};

/**
 * The sandbox a run uses. Unset means "the best available": bwrap, or `local` with a recorded,
 * printed reason. An explicit choice that cannot run is an error, never a quiet downgrade, because
 * the user asked for that isolation.
 */
export async function selectSandbox(
  requested: SandboxKind | undefined,
  registry: Record<SandboxKind, Sandbox>,
  source: string,
): Promise<SandboxChoice> {
  if (requested !== undefined) {
    const availability = await registry[requested].available();
    if (!availability.ok) {
      throw new SetupError(
        `${source}: sandbox '${requested}' cannot run here: ${availability.reason}. Fix: ${availability.fix}, ` +
          'or choose another with --sandbox (agentguard doctor lists what works).',
      );
    }
    return { sandbox: registry[requested] };
  }
  const bwrap = await registry.bwrap.available();
  if (bwrap.ok) return { sandbox: registry.bwrap };
  return {
    sandbox: registry.local,
    fallback: {
      component: 'sandbox',
      wanted: 'bwrap',
      used: 'local',
      reason: `${bwrap.reason} (fix: ${bwrap.fix}); the agent runs without isolation`,
    },
  };
}
