import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AnalysisResult } from '../analysis/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { InternalError } from '../errors.js';
import { type RunFile, runPath } from '../evidence/layout.js';
import { isMissing, READ_LIMITS, readEvidenceText, readJson } from '../evidence/read.js';
import { baseRedactor } from '../evidence/redact.js';
import { writeFileAtomic } from '../evidence/write.js';
import { agentguardVersion } from '../version.js';
import { walkArtifacts } from './artifacts.js';
import { canonicalJson, sha256File, sha256Text } from './digest.js';
import { agentguardSource } from './git-state.js';
import {
  type BatchRef,
  MANIFEST_FILE,
  MANIFEST_SCHEMA_VERSION,
  type Manifest,
  type ManifestFacts,
  TRACE_FILE,
} from './manifest-schema.js';
import { traceBodies } from './trace-build.js';
import { chain, filesDigest } from './trace-records.js';
import { treeSha256 } from './tree-hashes.js';

export type SealedRun = { manifestFile: string; traceHead: string; records: number; traceBytes: number };

type RunJson = {
  run_id: string;
  started_at: string;
  finished_at: string;
  stopped?: string;
  batch?: BatchRef;
};

/**
 * Seal a judged run: write trace.jsonl (the hash chain over its evidence, judgement and reports)
 * and then manifest.json (every artifact with its sha256 and the trace's head). Called once the
 * reports exist; anything written into the run folder afterwards is reported by `trace verify`.
 */
export function sealRun(runDir: string, analysis: AnalysisResult, now: Date): SealedRun {
  const walk = walkArtifacts(runDir);
  const strange = walk.strange;
  // A run sealed again (analyze) has its previous trace in the folder; the new one replaces it.
  const files = walk.files.filter((f) => f.path !== TRACE_FILE);
  if (strange.length > 0) {
    // The harness writes only regular files here; anything else is a bug worth stopping on.
    throw new InternalError(
      `cannot seal run folder ${runDir}: ${strange[0]?.path} is ${strange[0]?.what}, which the harness never writes there`,
    );
  }
  // Read once the walk found only regular files, and through the reader that follows no link.
  const run = readJson<RunJson>(runPath(runDir, 'run'), undefined, undefined, runDir);
  const cfg = readJson<ResolvedConfig>(runPath(runDir, 'config'), undefined, undefined, runDir);
  const facts = manifestFacts(runDir, run, cfg, analysis, now);
  const commandLines = commandLog(runDir);
  const records = chain(
    traceBodies({
      run,
      files,
      commandLines,
      analysis,
      facts_sha256: sha256Text(canonicalJson(facts)),
      files_sha256: filesDigest(files),
    }),
  );
  const traceText = records.map((r) => `${JSON.stringify(r)}\n`).join('');
  const traceFile = path.join(runDir, TRACE_FILE);
  writeFileAtomic(traceFile, traceText);
  const head = records[records.length - 1]?.hash ?? '';
  const manifest: Manifest = {
    ...facts,
    files: [...files, { path: TRACE_FILE, ...sha256File(traceFile) }].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    ),
    trace: { file: TRACE_FILE, records: records.length, head },
  };
  const manifestFile = path.join(runDir, MANIFEST_FILE);
  writeFileAtomic(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  return { manifestFile, traceHead: head, records: records.length, traceBytes: Buffer.byteLength(traceText) };
}

function manifestFacts(
  runDir: string,
  run: RunJson,
  cfg: ResolvedConfig,
  analysis: AnalysisResult,
  now: Date,
): ManifestFacts {
  const observation = readJsonOr(runDir, 'observation', null) as {
    sandbox?: { kind?: string; isolated?: boolean };
    tracer?: { kind?: string; requested?: string };
    network?: { mode?: string };
    fallbacks?: { component: string; wanted: string; used: string }[];
  } | null;
  const agent = readJsonOr(runDir, 'agent', {}) as {
    name?: string;
    adapter?: string;
    version?: string | null;
    model?: string | null;
    command_id?: string | null;
  };
  return {
    schema_version: MANIFEST_SCHEMA_VERSION,
    kind: 'run',
    run_id: run.run_id,
    batch: run.batch ?? null,
    started_at: run.started_at,
    finished_at: run.finished_at,
    sealed_at: now.toISOString(),
    agentguard: { version: agentguardVersion() },
    git: { agentguard: agentguardSource(), task_baseline: taskBaseline(runDir) },
    host: {
      hostname: os.hostname(),
      kernel: os.release(),
      platform: process.platform,
      arch: process.arch,
      node: process.version,
    },
    observation: {
      sandbox: observation?.sandbox?.kind ?? 'unknown',
      sandbox_isolated: observation?.sandbox?.isolated ?? false,
      tracer: observation?.tracer?.kind ?? 'unknown',
      tracer_requested: observation?.tracer?.requested ?? 'unknown',
      network: observation?.network?.mode ?? 'unknown',
      fallbacks: (observation?.fallbacks ?? []).map((f) => `${f.component}: ${f.wanted} -> ${f.used}`),
    },
    hashes: {
      config_snapshot: sha256File(runPath(runDir, 'config')).sha256,
      config_source: regularFile(cfg.config_path) ? sha256File(cfg.config_path).sha256 : null,
      benchmark_template: templateHash(cfg.repo),
      rules: regularFile(runPath(runDir, 'rules')) ? sha256File(runPath(runDir, 'rules')).sha256 : null,
    },
    agent: {
      name: agent.name ?? 'unknown',
      adapter: agent.adapter ?? 'unknown',
      version: agent.version ?? null,
      model: agent.model ?? null,
      argv: agentArgv(runDir, agent.command_id ?? null),
    },
    verdict: { result: analysis.score.result, score: analysis.score.score },
  };
}

/** The agent's command as the command log shows it (already sanitised), redacted once more. */
function agentArgv(runDir: string, commandId: string | null): string[] {
  if (!commandId) return [];
  try {
    for (const line of commandLog(runDir)) {
      if (!line.trim()) continue;
      const c = JSON.parse(line) as { id: string; display_argv: string[] };
      if (c.id === commandId) return baseRedactor.value(c.display_argv);
    }
  } catch {
    // A missing command log leaves the identity without argv.
  }
  return [];
}

/**
 * The template tree's hash, or null when it cannot be taken: gone, or holding a name that is not
 * UTF-8 (treeSha256 walks names as strings; a CI checkout may hold such a name).
 */
function templateHash(dir: string): string | null {
  if (!isDir(dir)) return null;
  try {
    return treeSha256(dir);
  } catch {
    return null;
  }
}

/** The baseline commit evidence/diff.json was taken against; a run that never prepared has none. */
function taskBaseline(runDir: string): string | null {
  const diff = readJsonOr(runDir, 'diff', null) as { baseline_sha?: unknown } | null;
  return typeof diff?.baseline_sha === 'string' && diff.baseline_sha !== '' ? diff.baseline_sha : null;
}

function readJsonOr(runDir: string, name: RunFile, fallback: unknown): unknown {
  try {
    return readJson(runPath(runDir, name), undefined, undefined, runDir);
  } catch {
    return fallback;
  }
}

/** The lines of evidence/commands.jsonl, none when it is missing. */
function commandLog(runDir: string): string[] {
  const file = runPath(runDir, 'commands');
  if (isMissing(file, runDir)) return [];
  return readEvidenceText(file, { maxBytes: READ_LIMITS.jsonl, within: runDir }).split('\n');
}

function regularFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function isDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
