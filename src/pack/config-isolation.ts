import type { ResolvedConfig } from '../config/schema.js';
import { type FloorBreach, floorBreaches, inputReach } from '../policy/isolation-floor.js';
import { judgementChanges } from '../policy/judgement-fields.js';
import { SANDBOXES } from '../sandbox/index.js';

/**
 * What a pack's config would do to the host if run: its sandbox, tracer and network as it asks for
 * them, and the commands it runs before the agent. `pack verify` and `import` list it for every
 * config, and refuse the configs below the isolation floor unless the operator allows them.
 */
export type ConfigIsolation = {
  /** The config's entry in the pack. */
  config: string;
  sandbox: string;
  tracer: string;
  network: string;
  /** setup_command and the declared installs, as they would run. */
  setup: string[];
  breaches: FloorBreach[];
};

/** `root`: the pack's folder, outside which a host path the config asks the sandbox to show is below the floor. */
export function configIsolation(entry: string, cfg: ResolvedConfig, root?: string): ConfigIsolation {
  // Unset: the best sandbox the host offers, checked against the floor again when a run picks it.
  const onHost = cfg.sandbox !== undefined && SANDBOXES[cfg.sandbox].capabilities.onHost;
  const sandbox = cfg.sandbox ?? 'auto';
  const installs = (cfg.setup?.dependencies ?? []).map((d) => {
    const dep = d as { manager: string; scripts?: boolean };
    return `${dep.manager} install${dep.scripts ? " with its packages' install scripts" : ''}`;
  });
  const setup = [...installs, ...(cfg.setup_command ? [cfg.setup_command.join(' ')] : [])];
  return {
    config: entry,
    sandbox,
    tracer: cfg.tracer,
    network: cfg.network.mode,
    setup,
    breaches: floorBreaches(
      {
        file: entry,
        sandbox: { kind: sandbox, onHost },
        tracer: cfg.tracer,
        network: cfg.network.mode,
        setupCommand: cfg.setup_command !== undefined,
        reach: inputReach(cfg),
        // A pack's judgement is not the operator's: listed and floored beside its isolation.
        judgement: judgementChanges(cfg),
      },
      root,
    ),
  };
}

/** One line: `configs/x/config.yaml: sandbox auto, tracer auto, network none; setup: npm install`. */
export function isolationLine(i: ConfigIsolation): string {
  const setup = i.setup.length > 0 ? `; setup: ${i.setup.join('; ')}` : '';
  const fields = (judgement: boolean) =>
    i.breaches.filter((b) => (b.judgement === true) === judgement).map((b) => b.field);
  const isolation = fields(false);
  const judgement = fields(true);
  const below =
    (isolation.length > 0 ? `  [below the floor: ${isolation.join(', ')}]` : '') +
    (judgement.length > 0 ? `  [judges more leniently: ${judgement.join(', ')}]` : '');
  return `${i.config}: sandbox ${i.sandbox}, tracer ${i.tracer}, network ${i.network}${setup}${below}`;
}
