import path from 'node:path';
import { type ConfigIsolation, isolationLine } from '../../pack/config-isolation.js';
import type { PackProblem } from '../../pack/read-zip.js';
import { loadTrustPolicy, type TrustVerdict } from '../../pack/trust-policy.js';
import type { PackVerdict } from '../../pack/verify-pack.js';
import type { CliIO } from '../io.js';

/* What the pack, keys and index commands share: their options and how verdicts are printed. */

export type PackOptions = {
  registry?: string;
  family?: string | string[];
  out?: string;
  name?: string;
  packVersion?: string;
  trust?: string;
  signatures?: string;
  into?: string;
  force?: boolean;
  registryOut?: string;
  suiteOut?: string;
  key?: string;
  hmac?: boolean;
  keyId?: string;
  json?: boolean;
  allowBelowFloor?: boolean;
};

/** One line per problem, naming the entry when there is one. */
export function printProblems(io: CliIO, file: string, problems: PackProblem[]): void {
  for (const p of problems)
    io.err(
      `agentguard: ${file}: ${p.entry === undefined ? '' : `entry '${p.entry}': `}${p.reason.replace(/\.$/, '')}.`,
    );
}

export function trustLine(t: TrustVerdict | undefined): string {
  if (t === undefined) return 'signatures not checked (no --trust)';
  return `trusted: ${t.valid.length} of ${t.required} required signature${t.required === 1 ? '' : 's'} (${t.valid.join(', ')})`;
}

export function verdictJson(file: string, v: PackVerdict) {
  return v.ok
    ? {
        file,
        ok: true,
        name: v.manifest.name,
        version: v.manifest.version,
        root: v.root,
        files: v.files,
        bytes: v.bytes,
        trust: v.trust ?? null,
        isolation: v.isolation,
      }
    : {
        file,
        ok: false,
        stage: v.stage,
        problems: v.problems,
        trust: v.trust ?? null,
        isolation: v.isolation ?? null,
      };
}

/** What verify, import and the index commands check: the trust policy, and the isolation floor unless --allow-below-floor. */
export function verifyOptions(opts: PackOptions) {
  return {
    ...(opts.trust === undefined ? {} : { trust: loadTrustPolicy(opts.trust) }),
    ...(opts.signatures === undefined ? {} : { signatures: path.resolve(opts.signatures) }),
    ...(opts.allowBelowFloor
      ? {}
      : { floor: { input: 'a config of the pack', allowFlag: '--allow-below-floor' } }),
  };
}

/** Each config's isolation and setup, one line each, then what was allowed below the floor. */
export function printIsolation(
  io: CliIO,
  isolation: readonly ConfigIsolation[] | undefined,
  allowed: boolean,
): void {
  if (isolation === undefined || isolation.length === 0) return;
  io.out(`configs (isolation asked for, setup run before the agent):`);
  for (const i of isolation) io.out(`  ${isolationLine(i)}`);
  const below = isolation.filter((i) => i.breaches.length > 0).length;
  if (below > 0 && allowed)
    io.err(
      `agentguard: ${below} config${below === 1 ? '' : 's'} below the floor (isolation or judgement), allowed by --allow-below-floor.`,
    );
}

export function reportImport(
  io: CliIO,
  file: string,
  verdict: PackVerdict,
  into: string,
  written: number,
  opts: PackOptions,
): number {
  if (opts.json) io.out(JSON.stringify({ ...verdictJson(file, verdict), into, written }, null, 2));
  if (!opts.json) printIsolation(io, verdict.isolation, opts.allowBelowFloor === true);
  if (!verdict.ok) {
    if (!opts.json) printProblems(io, file, verdict.problems);
    io.err(`agentguard: ${file}: refused (${verdict.stage}); nothing was written to ${into}.`);
    return 2;
  }
  if (!opts.json)
    io.out(
      `${file}: imported ${verdict.manifest.name}@${verdict.manifest.version} into ${into} (${written} files, root ${verdict.root}); ${trustLine(verdict.trust)}`,
    );
  return 0;
}
