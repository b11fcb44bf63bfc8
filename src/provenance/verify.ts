import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { errorMessage } from '../errors.js';
import { describeIssue, readTextFile } from '../evidence/read.js';
import { readTraceHead } from '../history/trace-head.js';
import { walkArtifacts } from './artifacts.js';
import { canonicalJson, sha256Text } from './digest.js';
import {
  MANIFEST_FILE,
  MANIFEST_SCHEMA_VERSION,
  type Manifest,
  ManifestSchema,
  TRACE_FILE,
} from './manifest-schema.js';
import { filesDigest, GENESIS, recordHash, type TraceRecord } from './trace-records.js';

/** A manifest is a few kilobytes per thousand files; a trace a few hundred bytes a record. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
export const MAX_TRACE_BYTES = 64 * 1024 * 1024;
export const MAX_TRACE_LINE_BYTES = 1024 * 1024;

export type Verification =
  | { status: 'intact'; manifest: Manifest; records: TraceRecord[] }
  /** Exit 1: something the run wrote was changed, added, removed or replaced. */
  | { status: 'tampered'; file: string; record?: number; reason: string }
  /** Exit 2: the input is not something verify can judge (no manifest, newer schema, too big). */
  | { status: 'unusable'; reason: string };

/**
 * Check a run folder against its manifest and trace, reading only: the trace's chain, its seal
 * against the manifest, and every artifact's sha256 against the manifest. Stops at the first
 * problem, which it names.
 */
export function verifyRun(runDir: string): Verification {
  const dir = path.resolve(runDir);
  if (!isDirectory(dir)) return unusable(`${dir} is not a folder; pass a run folder under .agentguard/runs/`);
  const loaded = loadManifest(dir);
  if ('status' in loaded) return loaded;
  const manifest = loaded.manifest;
  const trace = loadTrace(dir);
  if ('status' in trace) return trace;
  const records = trace.records;

  const last = records[records.length - 1];
  if (!last || last.hash !== manifest.trace.head || records.length !== manifest.trace.records) {
    return tampered(
      TRACE_FILE,
      `${TRACE_FILE} has ${records.length} records ending in ${short(last?.hash)}, but ${MANIFEST_FILE} sealed ${manifest.trace.records} ending in ${short(manifest.trace.head)}: records were removed, added or the manifest was edited`,
    );
  }
  if (last.kind !== 'seal') {
    return tampered(
      TRACE_FILE,
      `${TRACE_FILE} record ${last.seq} is a ${last.kind} record, not the seal`,
      last.seq,
    );
  }
  const { files, trace: _trace, ...facts } = manifest;
  if (sha256Text(canonicalJson(facts)) !== last.facts_sha256) {
    return tampered(
      MANIFEST_FILE,
      `${MANIFEST_FILE} was edited: its run facts no longer match what ${TRACE_FILE} record ${last.seq} sealed`,
    );
  }
  const sealedFiles = files.filter((f) => f.path !== TRACE_FILE);
  if (filesDigest(sealedFiles) !== last.files_sha256) {
    return tampered(
      MANIFEST_FILE,
      `${MANIFEST_FILE} was edited: its file list no longer matches what ${TRACE_FILE} record ${last.seq} sealed`,
    );
  }

  const changed = compareArtifacts(dir, files);
  if (changed) return changed;
  // The history row is kept outside the run folder: a folder rewritten consistently, trace and
  // manifest included, still disagrees with it.
  if (path.basename(path.dirname(dir)) === 'runs') {
    const dbFile = path.join(path.dirname(path.dirname(dir)), 'history.db');
    const recorded = existsSync(dbFile) ? readTraceHead(dbFile, manifest.run_id) : undefined;
    if (typeof recorded === 'string' && recorded !== manifest.trace.head) {
      return tampered(
        TRACE_FILE,
        `${dbFile} records trace head ${short(recorded)} for run ${manifest.run_id}, but the folder's trace ends in ${short(manifest.trace.head)}: the run folder was rewritten after it was sealed`,
      );
    }
  }
  return { status: 'intact', manifest, records };
}

/** Every artifact on disk against a manifest's list: the first changed, missing, added or odd one. */
export function compareArtifacts(
  dir: string,
  files: readonly { path: string; sha256: string; bytes: number }[],
  skip?: ReadonlySet<string>,
): Tampered | null {
  const walk = walkArtifacts(dir, skip);
  const odd = walk.strange[0];
  if (odd)
    return tampered(odd.path, `${odd.path} is ${odd.what}, which agentguard never writes in a run folder`);
  const onDisk = new Map(walk.files.map((f) => [f.path, f]));
  for (const f of files) {
    const now = onDisk.get(f.path);
    if (!now) return tampered(f.path, `${f.path} is listed in ${MANIFEST_FILE} but is missing`);
    if (now.sha256 !== f.sha256 || now.bytes !== f.bytes) {
      return tampered(
        f.path,
        `${f.path} was changed: its sha256 is ${short(now.sha256)}, ${MANIFEST_FILE} lists ${short(f.sha256)}`,
      );
    }
    onDisk.delete(f.path);
  }
  const extra = [...onDisk.keys()][0];
  if (extra)
    return tampered(
      extra,
      `${extra} is not listed in ${MANIFEST_FILE}: it was added after the run was sealed`,
    );
  return null;
}

function loadManifest(dir: string): { manifest: Manifest } | Verification {
  const read = readManifestFile(
    path.join(dir, MANIFEST_FILE),
    ManifestSchema,
    'manifest',
    'the run was made before provenance existed or did not finish; re-run the task to get a sealed run',
  );
  return 'value' in read ? { manifest: read.value } : read;
}

/**
 * A run's or a batch's manifest file, read as verify must: bounded, never through a symlink, and
 * refused when a newer agentguard wrote it. `missing` says why it may be absent and what to do.
 */
export function readManifestFile<T>(
  file: string,
  schema: z.ZodType<T>,
  what: string,
  missing: string,
): { value: T } | Tampered | Unusable {
  const read = readCapped(file, MAX_MANIFEST_BYTES);
  if (read.kind === 'missing') return unusable(`${file} is missing: ${missing}`);
  if (read.kind === 'symlink')
    return tampered(MANIFEST_FILE, `${file} is a symlink, which agentguard never writes`);
  if (read.kind === 'too-big')
    return unusable(
      `${file} is larger than ${MAX_MANIFEST_BYTES} bytes, so it is not a manifest agentguard wrote`,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(read.text);
  } catch (err) {
    return unusable(`${file} is not valid JSON (${errorMessage(err)}); it was cut short or edited`);
  }
  const version = (raw as { schema_version?: unknown } | null)?.schema_version;
  if (typeof version === 'number' && version > MANIFEST_SCHEMA_VERSION) {
    return unusable(
      `${file} has schema_version ${version}, newer than this agentguard understands (${MANIFEST_SCHEMA_VERSION}); upgrade agentguard to verify it`,
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return unusable(`${file} is not a valid ${what}: ${describeIssue(parsed.error)}`);
  return { value: parsed.data };
}

function loadTrace(dir: string): { records: TraceRecord[] } | Verification {
  const file = path.join(dir, TRACE_FILE);
  const read = readCapped(file, MAX_TRACE_BYTES);
  if (read.kind === 'missing')
    return tampered(TRACE_FILE, `${file} is missing, though ${MANIFEST_FILE} lists it`);
  if (read.kind === 'symlink')
    return tampered(TRACE_FILE, `${file} is a symlink, which agentguard never writes`);
  if (read.kind === 'too-big') {
    return unusable(`${file} is larger than ${MAX_TRACE_BYTES} bytes, so it is not a trace agentguard wrote`);
  }
  const lines = read.text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else {
    return tampered(
      TRACE_FILE,
      `${file} does not end in a newline after record ${lines.length - 1}: it was cut short`,
      lines.length - 1,
    );
  }
  const records: TraceRecord[] = [];
  let prev = GENESIS;
  for (const [i, line] of lines.entries()) {
    const broken = (why: string) => tampered(TRACE_FILE, `${file} record ${i} ${why}`, i);
    if (Buffer.byteLength(line) > MAX_TRACE_LINE_BYTES) {
      return unusable(
        `${file} record ${i} is longer than ${MAX_TRACE_LINE_BYTES} bytes, so it is not a trace agentguard wrote`,
      );
    }
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return broken('is not valid JSON: the trace was cut short or edited');
    }
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) return broken('is not a JSON object');
    if (typeof rec.hash !== 'string') return broken("has no 'hash' field");
    if (typeof rec.prev !== 'string') return broken("has no 'prev' field");
    if (rec.seq !== i)
      return broken(`says it is record ${String(rec.seq)}: records were removed or reordered`);
    if (rec.prev !== prev) return broken("does not link to the record before it ('prev' differs)");
    if (recordHash(rec, prev) !== rec.hash)
      return broken("was edited: its content does not match its 'hash'");
    prev = rec.hash;
    records.push(rec as TraceRecord);
  }
  return { records };
}

export type CappedRead =
  | { kind: 'ok'; text: string }
  | { kind: 'missing' }
  | { kind: 'symlink' }
  | { kind: 'too-big' };

/**
 * Reads a regular file without following a symlink and without blocking on a FIFO, refusing one
 * over `max` bytes (evidence/read.ts does the reading).
 */
export function readCapped(file: string, max: number): CappedRead {
  const read = readTextFile(file, max, path.dirname(file));
  if (read.ok) return { kind: 'ok', text: read.text };
  if (read.error.code === 'link') return { kind: 'symlink' };
  if (read.error.code === 'too-big') return { kind: 'too-big' };
  return { kind: 'missing' };
}

function isDirectory(dir: string): boolean {
  try {
    return lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function short(hash: string | undefined): string {
  return hash ? hash.slice(0, 12) : 'nothing';
}

export type Tampered = { status: 'tampered'; file: string; record?: number; reason: string };
export type Unusable = { status: 'unusable'; reason: string };

export function tampered(file: string, reason: string, record?: number): Tampered {
  return { status: 'tampered', file, reason, ...(record !== undefined ? { record } : {}) };
}

export function unusable(reason: string): Unusable {
  return { status: 'unusable', reason };
}
