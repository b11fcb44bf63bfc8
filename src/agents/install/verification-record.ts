import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../../errors.js';

/*
 * The last successful verification of each agent, kept beside the agent cache so that it describes
 * what that cache holds: `<cache>/.verified/<agent>.json`, one file per agent, so that tests verifying
 * different agents at once never write the same file. `agents verify NAME` and the real-agent e2e
 * tests both write it through recordVerification; `agents list` reads it.
 */

const VerificationSchema = z.strictObject({
  schema_version: z.literal(1),
  agent: z.string().min(1),
  /** The agent's version as it printed it; null when it printed none. */
  version: z.string().nullable(),
  /** ISO 8601 time of the verification. */
  verified_at: z.iso.datetime(),
  /** What verified it: `agents verify`, or the e2e test that ran it. */
  by: z.string().min(1),
  /** One line per step that worked, as the verifier printed it. */
  worked: z.array(z.string()),
});
export type Verification = z.output<typeof VerificationSchema>;

export type VerificationState =
  | { status: 'verified'; record: Verification }
  | { status: 'never' }
  | { status: 'unreadable'; reason: string };

/** The folder of verification records inside an agent cache (a dot-folder: not an agent). */
export function verificationsDir(cacheDir: string): string {
  return path.join(cacheDir, '.verified');
}

function recordFile(cacheDir: string, agent: string): string {
  return path.join(verificationsDir(cacheDir), `${agent}.json`);
}

/**
 * Record one successful verification, replacing the agent's previous one. Written to a temporary file
 * and renamed, so a reader never sees half a record. Returns the file written.
 */
export function recordVerification(
  cacheDir: string,
  v: { agent: string; version: string | null; by: string; worked: string[]; at: Date },
): string {
  const record: Verification = {
    schema_version: 1,
    agent: v.agent,
    version: v.version,
    verified_at: v.at.toISOString(),
    by: v.by,
    worked: v.worked,
  };
  const file = recordFile(cacheDir, v.agent);
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

/** The agent's last recorded verification; a damaged record is reported, not taken for "never". */
export function readVerification(cacheDir: string, agent: string): VerificationState {
  const file = recordFile(cacheDir, agent);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'never' };
    return { status: 'unreadable', reason: `${file}: ${errorMessage(e)}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { status: 'unreadable', reason: `${file} is not JSON` };
  }
  const parsed = VerificationSchema.safeParse(raw);
  if (!parsed.success || parsed.data.agent !== agent)
    return { status: 'unreadable', reason: `${file} is not a verification record of ${agent}` };
  return { status: 'verified', record: parsed.data };
}

/** How `agents list` shows it: `2026-12-03 (0.169.0)`, `never`, or `unreadable`. */
export function formatVerification(state: VerificationState): string {
  if (state.status === 'never') return 'never';
  if (state.status === 'unreadable') return 'unreadable';
  const day = state.record.verified_at.slice(0, 10);
  return state.record.version ? `${day} (${state.record.version})` : day;
}
