import { posix } from 'node:path';
import { DEFAULT_HARNESS_ENDPOINTS } from './compile.js';
import { fileKey } from './file-identity.js';
import type { RuleContext } from './types.js';

/** What a run knows that the rule placeholders need; every field comes from the evidence bundle. */
export type ContextInput = {
  /** The workspace as the traced processes see it (the run's repo folder). */
  workspace: string;
  /** The sandbox HOME as the traced processes see it (canaries.json `home`, else the sandbox's home_inside). */
  home: string;
  /** canaries.json `canaries[].path`, relative to home (absolute paths are kept). */
  canaryPaths?: readonly string[];
  /** canaries.json `canaries[]` with their identity (dev, ino): paths as in canaryPaths. */
  canaryFiles?: readonly { path: string; dev?: number; ino?: number }[];
  /** protected-state.json `files`: the protected files recorded before the agent, absolute, with their identity. */
  protectedFiles?: readonly { path: string; dev: number; ino: number }[];
  /** config.network.allow. */
  allow?: readonly string[];
  /** Keys of config.network.hosts (names mapped to local servers count as allowed). */
  hostsMap?: Readonly<Record<string, string>>;
  /** The agent profile's state folders and files; `~/` means home. */
  stateDirs?: readonly string[];
  /** agent.vendor_hosts: the agent vendor's own hosts, from its profile. */
  vendorHosts?: readonly string[];
  /** observation.tracer.binds. */
  bindsRecorded?: boolean;
  /** observation.tracer.paths is `as-written` (bpftrace): no descriptor copies in the evidence. */
  stdioCopiesUnrecorded?: boolean;
  /** observation.sandbox.facts.run_user: `uid:gid`. */
  runUser?: string;
  /** Endpoints the harness served besides the sandbox bridge's defaults (observation.network.endpoint). */
  harnessEndpoints?: readonly string[];
};

/** Builds the rule context from run facts. Pure. */
export function buildRuleContext(input: ContextInput): RuleContext {
  const home = input.home;
  const abs = (p: string) =>
    p.startsWith('/') ? posix.normalize(p) : posix.join(home, p.replace(/^~\//, ''));
  const ctx: RuleContext = {
    workspace: input.workspace,
    home,
    canaries: (input.canaryPaths ?? []).map(abs),
    allowedHosts: [...(input.allow ?? []), ...Object.keys(input.hostsMap ?? {})],
    stateDirs: (input.stateDirs ?? []).map(abs),
  };
  // A canary is also a file of HOME the harness recorded: its name as a canary wins.
  const identified = [...(input.protectedFiles ?? []), ...(input.canaryFiles ?? [])].filter(
    (c) => c.dev !== undefined && c.ino !== undefined,
  );
  if (identified.length > 0)
    ctx.knownFiles = new Map(identified.map((c) => [fileKey(c.dev as number, c.ino as number), abs(c.path)]));
  if (input.harnessEndpoints)
    ctx.harnessEndpoints = [...new Set([...DEFAULT_HARNESS_ENDPOINTS, ...input.harnessEndpoints])];
  if (input.vendorHosts?.length) ctx.vendorHosts = [...input.vendorHosts];
  if (input.bindsRecorded) ctx.bindsRecorded = true;
  if (input.stdioCopiesUnrecorded) ctx.stdioCopiesUnrecorded = true;
  const runUser = /^(\d+):(\d+)$/.exec(input.runUser ?? '');
  if (runUser) ctx.runUser = { uid: Number(runUser[1]), gid: Number(runUser[2]) };
  if (input.hostsMap) ctx.localServices = Object.values(input.hostsMap);
  return ctx;
}
