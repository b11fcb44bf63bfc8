import { realpathSync } from 'node:fs';
import path from 'node:path';
import { isProfilePath, loadProfileResult } from '../agents/profiles/load-profile.js';
import type { NamedMount, ResolvedConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { parseAllowEntry } from '../observe/proxy/allow-list.js';
import {
  type HostPolicy,
  imageAllowed,
  internalHost,
  mirrorAllowed,
  networkHostAllowed,
  readHostPolicy,
  relayAllowed,
} from './host-policy.js';
import { type JudgementChange, judgementChanges } from './judgement-fields.js';

/**
 * The isolation floor: the least isolation a run of input the operator did not write may have (a
 * pull request in CI, a queue job on a worker, an imported pack). Only the operator sets it, through
 * a flag of the command they run and the host policy (host-policy.ts); no field of the input can
 * lower it, because the input is exactly what the floor distrusts.
 */
export type IsolationFloor = {
  /** The untrusted input, in words: `the pull request's head`, `queue job 'abc'`, `pack 'p' (imported)`. */
  input: string;
  /** The operator's flag that lowers the floor for this command, named in every refusal. */
  allowFlag: string;
  /**
   * The folder the input came in (the pack's, the job's bundle): a host path the input asks the
   * sandbox to show outside it is below the floor unless the host policy lists it. Unset: no such
   * folder, so every host path must be listed.
   */
  root?: string;
  /** Variables of the host's environment the operator lets this command's inputs pass to agents (the worker's --agent-env). */
  agentEnv?: ReadonlySet<string>;
  /**
   * The input's judgement is not the operator's either (a pack's config): its judgement fields
   * (judgement-fields.ts) may not be weaker than agentguard's defaults. Unset where they come from
   * the trusted side (ci's base policy, a queue coordinator's bundle pinned by digest).
   */
  judgement?: boolean;
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
  /** What of the host the config asks to reach (inputReach): judged against the root and the host policy. */
  reach?: InputReach;
  /** Where the config judges more leniently than the defaults (judgementChanges), when its judgement is judged. */
  judgement?: readonly JudgementChange[];
};

/**
 * Every field of a config by which it reaches beyond its own folder: host paths the sandbox shows
 * (sandbox.mounts, toolchains, `{config_dir}` arguments), setup's cache folders and mirror URLs,
 * the network's allow list and fake hosts, and a container runtime (a host program podman runs).
 */
export type InputReach = {
  mounts: readonly NamedMount[];
  caches: readonly { field: string; path: string }[];
  mirrors: readonly { field: string; url: string }[];
  allow: readonly string[];
  hosts: Readonly<Record<string, string>>;
  containerRuntime?: string;
  /** The container image the input names (container.image): what the engine pulls and runs. */
  containerImage?: string;
  /** Variables of the host's environment the agent is given (agent_environment, its profile's env_pass). */
  env: readonly { field: string; name: string }[];
  /** The model provider the relay would send the operator's key to, and the key's variable (model_relay). */
  relay?: { provider: string; key_env: string };
  /**
   * Host files and folders the harness reads for the input: its template repo, solution, prompt
   * file, rule files, profile file, model script and skills (copied into the workspace, shown to
   * the agent, or obeyed as rules).
   */
  files: readonly { field: string; path: string }[];
};

/**
 * What of the host a loaded config reaches, by field (see InputReach). `hostEnv`: the environment the
 * agent's profile would read its env_pass names from.
 */
export function inputReach(cfg: ResolvedConfig, hostEnv: NodeJS.ProcessEnv = process.env): InputReach {
  const caches: { field: string; path: string }[] = [];
  const mirrors: { field: string; url: string }[] = [];
  for (const [i, d] of (cfg.setup?.dependencies ?? []).entries()) {
    const dep = d as { cache?: string; mirror?: string };
    if (dep.cache !== undefined) caches.push({ field: `setup.dependencies[${i}].cache`, path: dep.cache });
    if (dep.mirror !== undefined) mirrors.push({ field: `setup.dependencies[${i}].mirror`, url: dep.mirror });
  }
  const env = cfg.agent_environment.map((name, i) => ({ field: `agent_environment[${i}]`, name }));
  // The profile is the input's choice, a built-in one too: its env_pass hands the agent the host's
  // API keys. A name the profile sets itself (or its scripted model does) passes nothing; of a
  // built-in profile's names, only those the host has reach anything.
  if (cfg.agent_profile !== undefined) {
    const file = isProfilePath(cfg.agent_profile);
    const profile = loadProfileResult(cfg.agent_profile);
    if (profile.ok) {
      const { env_pass, env_set, scripted } = profile.value;
      const set = new Set([
        ...Object.keys(env_set),
        ...(cfg.model_script !== undefined ? Object.keys(scripted.env_set) : []),
      ]);
      for (const [i, name] of env_pass.entries())
        if (!set.has(name) && (file || hostEnv[name] !== undefined))
          env.push({ field: `agent_profile (${cfg.agent_profile}) env_pass[${i}]`, name });
    }
  }
  const files: { field: string; path: string }[] = [{ field: 'repo', path: cfg.repo }];
  const add = (field: string, p: string | undefined) => {
    if (p !== undefined) files.push({ field, path: p });
  };
  add('solution', cfg.solution);
  add('task.prompt_file', cfg.prompt_file);
  add('model_script', cfg.model_script);
  add('skills', cfg.skills);
  if (cfg.agent_profile !== undefined && isProfilePath(cfg.agent_profile))
    add('agent_profile', cfg.agent_profile);
  for (const [i, rule] of cfg.security.rules.entries()) add(`security.rules[${i}]`, rule);
  return {
    env,
    files,
    mounts: cfg.mounts,
    caches,
    mirrors,
    allow: cfg.network.mode === 'allowlist' ? cfg.network.allow : [],
    hosts: cfg.network.hosts,
    ...(cfg.container?.runtime !== undefined ? { containerRuntime: cfg.container.runtime } : {}),
    ...(cfg.container !== undefined ? { containerImage: cfg.container.image } : {}),
    ...(cfg.model_relay !== undefined
      ? { relay: { provider: cfg.model_relay.provider, key_env: cfg.model_relay.key_env } }
      : {}),
  };
}

/**
 * One way a run would fall below the floor: the config field, what it would do, and how the
 * operator allows that one thing (unset: only the command's flag that lowers the whole floor).
 */
export type FloorBreach = {
  field: string;
  what: string;
  allow?: string;
  /** Below the judgement half of the floor (a weaker judgement), not the isolation half. */
  judgement?: true;
};

/**
 * Every way these facts fall below the floor (empty: the run may go ahead). `root`: the folder the
 * input came in, whose paths it may show; any other host path must be one the operator's host
 * policy lists, as must every mirror and internal network address.
 */
export function floorBreaches(
  facts: IsolationFacts,
  root?: string,
  policy: HostPolicy = readHostPolicy(),
  agentEnv: ReadonlySet<string> = new Set(),
): FloorBreach[] {
  const breaches: FloorBreach[] = [];
  const reach = facts.reach;
  const listIt = (key: string, value: string) => `listing ${value} under ${key} in ${policy.file}`;
  const shown = [...(reach?.mounts ?? []), ...(reach?.caches ?? []).map((c) => ({ ...c, writable: false }))];
  for (const m of shown) {
    if (m.writable)
      breaches.push({
        field: m.field,
        what: `it shows ${m.path} to the agent writable, a host folder it could change`,
      });
    else if (
      !(root !== undefined && insideEverWay(m.path, root)) &&
      !policy.host_paths.some((allowed) => insideEverWay(m.path, allowed))
    )
      breaches.push({
        field: m.field,
        what: `it shows ${m.path} to the agent, a host folder ${root === undefined ? 'the input did not bring' : `outside ${root}`}`,
        allow: listIt('host_paths', realOr(m.path)),
      });
  }
  // A file may also be reached by a link in the input's folder into a folder the policy lists.
  const listedFile = (p: string, allowed: string) =>
    insideEverWay(p, allowed) ||
    (root !== undefined && within(path.resolve(p), path.resolve(root)) && within(realOr(p), realOr(allowed)));
  for (const f of reach?.files ?? [])
    if (
      !(root !== undefined && insideEverWay(f.path, root)) &&
      !policy.host_paths.some((allowed) => listedFile(f.path, allowed))
    )
      breaches.push({
        field: f.field,
        what: `it has agentguard read ${f.path}, a host file ${root === undefined ? 'the input did not bring' : `outside ${root}`} (copied into the workspace, shown to the agent or obeyed as rules)`,
        allow: listIt('host_paths', realOr(f.path)),
      });
  for (const m of reach?.mirrors ?? [])
    if (!mirrorAllowed(m.url, policy.mirrors))
      breaches.push({
        field: m.field,
        what: `setup would fetch from ${m.url}, a mirror the operator did not allow (it could be an internal service)`,
        allow: listIt('mirrors', m.url),
      });
  for (const [i, entry] of (reach?.allow ?? []).entries()) {
    const parsed = parseAllowEntry(entry);
    if (!parsed.ok) continue; // the loader said it
    const { host, port } = parsed.entry;
    const why =
      host === '*' ? 'it lets the agent reach every host, internal ones included' : internalHost(host);
    if (why !== null && !networkHostAllowed(host, port, policy.network_hosts))
      breaches.push({
        field: `network.allow[${i}]`,
        what: `${why}: the agent could reach services of the host or its network`,
        allow: listIt('network_hosts', entry),
      });
  }
  for (const [name, address] of Object.entries(reach?.hosts ?? {})) {
    const at = address.lastIndexOf(':');
    const host = address.slice(0, at);
    const why = internalHost(host);
    if (why !== null && !networkHostAllowed(host, Number(address.slice(at + 1)), policy.network_hosts))
      breaches.push({
        field: `network.hosts.${name}`,
        what: `it routes ${name} to ${address}; ${why}: the agent could reach a service of the host`,
        allow: listIt('network_hosts', address),
      });
  }
  for (const e of reach?.env ?? [])
    if (!agentEnv.has(e.name) && !policy.agent_env.includes(e.name))
      breaches.push({
        field: e.field,
        what: `it gives the agent ${e.name} from the host's environment, where API keys and tokens live`,
        allow: listIt('agent_env', e.name),
      });
  if (reach?.relay !== undefined && !relayAllowed(reach.relay, policy.model_relays))
    breaches.push({
      field: 'model_relay',
      what: `the relay would send the operator's ${reach.relay.key_env} to ${reach.relay.provider}, a provider and key the operator did not pair`,
      allow: listIt('model_relays', `{provider: ${reach.relay.provider}, key_env: ${reach.relay.key_env}}`),
    });
  if (reach?.containerImage !== undefined && !imageAllowed(reach.containerImage, policy.container_images))
    breaches.push({
      field: 'container.image',
      what: `the container engine would pull and run ${reach.containerImage}, an image the operator did not allow (from any registry, an internal one included)`,
      allow: listIt('container_images', reach.containerImage),
    });
  if (reach?.containerRuntime !== undefined)
    breaches.push({
      field: 'container.runtime',
      what: `the container engine would run ${reach.containerRuntime}, a program of the host, as the container's runtime`,
    });
  for (const j of facts.judgement ?? []) breaches.push({ ...j, judgement: true });
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

/** How the operator allows one breach, in words: by the host policy's line for it, or with the command's flag. */
export function allowBreach(b: FloorBreach, allowFlag: string): string {
  return b.allow === undefined ? `with ${allowFlag}` : `by ${b.allow}, or with ${allowFlag}`;
}

/** What a breach does, after the input's name: asks for less isolation, or judges itself more leniently. */
export function breachVerb(b: FloorBreach): string {
  return b.judgement
    ? "would judge its runs more leniently than agentguard's defaults"
    : 'asks for less isolation than the floor allows';
}

/** Refuse facts below the floor with one error: each breach names the input, the field and how the operator allows it. */
export function enforceFloor(floor: IsolationFloor | undefined, facts: IsolationFacts): void {
  if (!floor) return;
  const judged = floor.judgement ? facts : { ...facts, judgement: [] };
  const breaches = floorBreaches(judged, floor.root, readHostPolicy(), floor.agentEnv);
  if (breaches.length === 0) return;
  throw new ConfigError(
    breaches.map((b) => ({
      file: facts.file,
      field: b.field,
      message: `${floor.input} ${breachVerb(b)}: ${b.what}`,
      fix: `an operator who trusts this input can allow it ${allowBreach(b, floor.allowFlag)}; the input itself cannot`,
    })),
  );
}

/**
 * Refuse a config whose judgement is below the floor, where its isolation is judged elsewhere (a
 * queue coordinator sending a pack's config: the worker floors the isolation, and cannot know the
 * config came from a pack).
 */
export function enforceJudgement(floor: IsolationFloor | undefined, cfg: ResolvedConfig): void {
  if (!floor?.judgement) return;
  const changes = judgementChanges(cfg);
  if (changes.length === 0) return;
  throw new ConfigError(
    changes.map((c) => ({
      file: cfg.config_path,
      field: c.field,
      message: `${floor.input} ${breachVerb({ ...c, judgement: true })}: ${c.what}`,
      fix: `an operator who trusts this input can allow it with ${floor.allowFlag}; the input itself cannot`,
    })),
  );
}

/** `p` lies in `root`, by the paths as written and with their links resolved. */
function insideEverWay(p: string, root: string): boolean {
  return within(path.resolve(p), path.resolve(root)) && within(realOr(p), realOr(root));
}

function within(a: string, b: string): boolean {
  const rel = path.relative(b, a);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
