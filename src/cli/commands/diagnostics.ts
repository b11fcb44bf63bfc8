import { ConfigError } from '../../errors.js';
import type { CliIO } from '../io.js';
import type { DiagnosticsOptions } from './diagnostic-session.js';
import { ablationCommand } from './diagnostics-ablation.js';
import { mutationsCommand } from './diagnostics-mutations.js';
import { matrixStressCommand } from './matrix-stress.js';

/** Every `diagnostics <action>`; the registry (src/cli/registry/host.ts) holds their help and flags. */
const ACTIONS: Record<string, (io: CliIO, opts: DiagnosticsOptions) => Promise<number>> = {
  mutations: mutationsCommand,
  ablation: ablationCommand,
  'matrix-stress': matrixStressCommand,
};

/** `agentguard diagnostics <action>`: measurements of agentguard's own checks and machinery. */
export function diagnosticsCommand(io: CliIO, action: string, opts: DiagnosticsOptions): Promise<number> {
  const chosen = ACTIONS[action];
  if (!chosen)
    throw new ConfigError(
      `'diagnostics ${action}' is not a diagnostic. Fix: use one of ${Object.keys(ACTIONS)
        .map((n) => `'diagnostics ${n}'`)
        .join(', ')}.`,
    );
  return chosen(io, opts);
}
