import { canonicalJson, sha256Text } from './digest.js';

/**
 * One policy-relevant fact of a run. File records commit to an evidence or report file's content
 * hash; check, alert and score records carry the judgement replay compares against; the last
 * record seals the manifest's facts and file list.
 */
export type TraceBody =
  | { kind: 'run'; run_id: string; started_at: string; finished_at: string; stopped: string | null }
  | { kind: 'evidence' | 'report'; file: string; sha256: string; bytes: number; records?: number }
  | {
      kind: 'command';
      id: string;
      role: string;
      argv: string[];
      exit_code: number | null;
      line_sha256: string;
    }
  | { kind: 'check'; id: string; passed: boolean; severity: string }
  /** `event_seq`: the alert's first matching event; `seq` is the record's place in the chain. */
  | {
      kind: 'alert';
      rule: string;
      severity: string;
      syscall: string;
      event_seq: number;
      phase: string | null;
    }
  | { kind: 'score'; result: string; score: number }
  | { kind: 'seal'; facts_sha256: string; files_sha256: string; files: number };

export type TraceRecord = TraceBody & { seq: number; prev: string; hash: string };

/** The hash before the first record. */
export const GENESIS = '0'.repeat(64);

/** A record's hash: over the previous hash and the canonical JSON of everything but `hash`. */
export function recordHash(body: Record<string, unknown>, prev: string): string {
  const { hash: _ignored, ...rest } = body;
  return sha256Text(`${prev}\n${canonicalJson(rest)}`);
}

/** Chain bodies in order: each record names its position and the hash of the one before it. */
export function chain(bodies: readonly TraceBody[]): TraceRecord[] {
  let prev = GENESIS;
  return bodies.map((body, seq) => {
    const withLink = { ...body, seq, prev };
    const hash = recordHash(withLink, prev);
    prev = hash;
    return { ...withLink, hash };
  });
}

/** The digest the seal record takes over a file list: one `sha256  bytes  path` line each, sorted. */
export function filesDigest(files: readonly { path: string; sha256: string; bytes: number }[]): string {
  const lines = [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => `${f.sha256}  ${f.bytes}  ${f.path}\n`);
  return sha256Text(lines.join(''));
}
