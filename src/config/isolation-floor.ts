import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { NamedMount } from './schema.js';

/**
 * The isolation floor: the least isolation a run of input the operator did not write may have (a
 * pull request in CI, a queue job on a worker, an imported pack). Only the operator sets it, through
 * a flag of the command they run; no field of the input can lower it, because the input is exactly
 * what the floor distrusts.
 */
export type IsolationFloor = {
  /** The untrusted input, in words: `the pull request's head`, `queue job 'abc'`, `pack 'p' (imported)`. */
  input: string;
  /** The operator's flag that lowers the floor for this command, named in every refusal. */
  allowFlag: string;
  /**
   * The folder the input came in (the pack's, the job's bundle): a host path the input asks the
   * sandbox to show outside it is below the floor. Unset: no such folder (a pull request's policy).
   */
  root?: string;
};

/** What the floor judges: the isolation a run plans to have, after the sandbox and tracer were chosen. */
export type IsolationFacts = {
  /** Where the facts come from (a config path), named in the refusal. */
  file: string;
  sandbox: { kind: string; onHost: boolean };
  tracer: string;
  network: string;
  /** The config has a setup_command: it runs wherever the agent's commands run. */
  setupCommand: boolean;
  /** The host paths the config asks the sandbox to show (ResolvedConfig.mounts). */
  mounts?: readonly NamedMount[];
};

/** One way a run would fall below the floor: the config field and what it would do. */
export type FloorBreach = { field: string; what: string };

/** Every way these facts fall below the floor (empty: the run may go ahead). */
export function floorBreaches(facts: IsolationFacts, root?: string): FloorBreach[] {
  const breaches: FloorBreach[] = [];
  for (const m of facts.mounts ?? []) {
    if (m.writable)
      breaches.push({
        field: m.field,
        what: `it shows ${m.path} to the agent writable, a host folder it could change`,
      });
    if (root !== undefined && !insideEverWay(m.path, root))
      breaches.push({ field: m.field, what: `it shows ${m.path} to the agent, outside ${root}` });
  }
  if (facts.sandbox.onHost) {
    breaches.push({
      field: 'sandbox',
      what: `sandbox '${facts.sandbox.kind}' runs the agent's and the tests' commands directly on the host`,
    });
    if (facts.setupCommand) {
      breaches.push({
        field: 'setup_command',
        what: 'setup_command would run on the host, outside any sandbox',
      });
    }
  }
  if (facts.tracer === 'off') {
    breaches.push({
      field: 'tracer',
      what: "tracer 'off' records no system calls, so nothing the agent did is seen",
    });
  }
  if (facts.network === 'host') {
    breaches.push({
      field: 'network.mode',
      what: "network mode 'host' gives the agent the host's network unwatched",
    });
  }
  return breaches;
}

/** Refuse facts below the floor with one error: each breach names the input, the field and the operator's flag. */
export function enforceFloor(floor: IsolationFloor | undefined, facts: IsolationFacts): void {
  if (!floor) return;
  const breaches = floorBreaches(facts, floor.root);
  if (breaches.length === 0) return;
  throw new ConfigError(
    breaches.map((b) => ({
      file: facts.file,
      field: b.field,
      message: `${floor.input} asks for less isolation than the floor allows: ${b.what}`,
      fix: `an operator who trusts this input can allow it with ${floor.allowFlag}; the input itself cannot`,
    })),
  );
}

/** `p` lies in `root`, by the paths as written and with their links resolved. */
function insideEverWay(p: string, root: string): boolean {
  const inside = (a: string, b: string) => {
    const rel = path.relative(b, a);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  return inside(path.resolve(p), path.resolve(root)) && inside(realOr(p), realOr(root));
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
