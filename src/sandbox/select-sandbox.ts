import { SetupError } from '../errors.js';
import { SANDBOX_KINDS, type SandboxKind } from '../evidence/kinds.js';
import type { Sandbox } from './types.js';

export type SandboxChoice = {
  sandbox: Sandbox;
  fallback?: { component: 'sandbox'; wanted: string; used: string; reason: string };
};

/** The sandboxes tried, in order, when the config names none: those that need no config section and may be chosen automatically. */
export function automaticSandboxes(registry: Record<SandboxKind, Sandbox>): SandboxKind[] {
  return SANDBOX_KINDS.filter(
    (kind) =>
      registry[kind].capabilities.needsConfig === undefined && !registry[kind].capabilities.onlyByName,
  );
}

/**
 * The sandbox a run uses. Unset means "the best available": the first automatic sandbox that can
 * run here (bwrap, else `local`), with a recorded, printed reason for each one passed over. An
 * explicit choice that cannot run is an error, never a quiet downgrade, because the user asked for
 * that isolation.
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
  const order = automaticSandboxes(registry);
  const skipped: string[] = [];
  for (const kind of order) {
    const sandbox = registry[kind];
    const availability = await sandbox.available();
    if (!availability.ok) {
      skipped.push(`${availability.reason} (fix: ${availability.fix})`);
      continue;
    }
    if (skipped.length === 0) return { sandbox };
    const unisolated = sandbox.capabilities.onHost ? '; the agent runs without isolation' : '';
    return {
      sandbox,
      fallback: {
        component: 'sandbox',
        wanted: order[0] as SandboxKind,
        used: kind,
        reason: `${skipped.join('; ')}${unisolated}`,
      },
    };
  }
  throw new SetupError(`${source}: no sandbox can run here: ${skipped.join('; ')}.`);
}
