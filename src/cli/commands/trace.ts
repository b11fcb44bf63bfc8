import { loadConfigOrThrow } from '../../config/load.js';
import { InputError } from '../../errors.js';
import { replayability, replayRun } from '../../pipeline/replay-run.js';
import type { TraceRecord } from '../../provenance/trace-records.js';
import { type Verification, verifyRun } from '../../provenance/verify.js';
import { isBatchDir, verifyBatch } from '../../provenance/verify-batch.js';
import type { CliIO } from '../io.js';

export type TraceOptions = { json?: boolean; config?: string };

/** 0 intact, 1 tampered (the first broken record or changed file named), 2 unusable input. */
export async function traceVerify(io: CliIO, runDir: string, opts: TraceOptions): Promise<number> {
  if (isBatchDir(runDir)) {
    const b = verifyBatch(runDir);
    if (opts.json) io.out(JSON.stringify(b, null, 2));
    else if (b.status === 'intact') io.out(`intact: batch files (${b.files}) and ${b.runs} runs match`);
    if (b.status === 'unusable') throw new InputError(b.reason);
    if (b.status === 'tampered' && !opts.json) io.err(`agentguard: tampered: ${b.reason}`);
    return b.status === 'intact' ? 0 : 1;
  }
  const v = verifyRun(runDir);
  if (opts.json) io.out(JSON.stringify(verificationJson(v), null, 2));
  else if (v.status === 'intact') {
    io.out(
      `intact: ${v.manifest.files.length} files and ${v.records.length} trace records match; head ${v.manifest.trace.head}`,
    );
    return 0;
  }
  return exitOf(v, opts.json ? undefined : io);
}

/** The trace as a readable timeline, after verifying it. */
export async function traceShow(io: CliIO, runDir: string, opts: TraceOptions): Promise<number> {
  const v = verifyRun(runDir);
  if (v.status !== 'intact') return exitOf(v, io);
  if (opts.json) {
    io.out(JSON.stringify(v.records, null, 2));
    return 0;
  }
  const m = v.manifest;
  io.out(
    `run ${m.run_id} (${m.verdict.result}, score ${m.verdict.score}) · agent ${m.agent.name} · sandbox ${m.observation.sandbox} · tracer ${m.observation.tracer} · network ${m.observation.network}`,
  );
  for (const r of v.records) io.out(`${String(r.seq).padStart(4)}  ${r.hash.slice(0, 12)}  ${describe(r)}`);
  return 0;
}

/** 0 replayable, 1 not (and why), 2 unusable input. */
export async function traceReplayability(io: CliIO, runDir: string, opts: TraceOptions): Promise<number> {
  const r = replayability(runDir);
  if (opts.json) io.out(JSON.stringify(r.replayable ? r : { replayable: false, reason: r.reason }, null, 2));
  else io.out(r.replayable ? `replayable: ${r.records} verified records` : `not replayable: ${r.reason}`);
  if (!r.replayable && r.verification.status === 'unusable') return 2;
  return r.replayable ? 0 : 1;
}

/** 0 the replay gives the stored judgement, 1 it differs or the run cannot be replayed, 2 unusable input. */
export async function traceReplay(io: CliIO, runDir: string, opts: TraceOptions): Promise<number> {
  const policy = opts.config ? loadConfigOrThrow(opts.config) : undefined;
  const out = replayRun(runDir, policy);
  if (out.status === 'not-replayable') {
    const v = out.replayability.verification;
    if (v.status === 'unusable') throw new InputError(v.reason);
    io.err(`agentguard: not replayable: ${out.replayability.reason}`);
    return 1;
  }
  const e = out.equivalence;
  if (opts.json) {
    io.out(JSON.stringify(e, null, 2));
    return e.equivalent ? 0 : 1;
  }
  io.out(
    e.equivalent
      ? `equivalent: ${e.verdict.replayed}, score ${e.score.replayed}, same checks and alerts as stored`
      : `different: verdict ${e.verdict.stored} -> ${e.verdict.replayed}, score ${e.score.stored} -> ${e.score.replayed}`,
  );
  for (const c of e.checks) io.out(`  check ${c.id}: ${label(c.stored)} -> ${label(c.replayed)}`);
  for (const a of e.alerts.only_stored) io.out(`  alert only stored: ${a.rule} (event ${a.seq})`);
  for (const a of e.alerts.only_replayed) io.out(`  alert only replayed: ${a.rule} (event ${a.seq})`);
  return e.equivalent ? 0 : 1;
}

function exitOf(v: Verification, io?: CliIO): number {
  if (v.status === 'intact') return 0;
  if (v.status === 'unusable') throw new InputError(v.reason);
  io?.err(`agentguard: tampered: ${v.reason}`);
  return 1;
}

/** Printed on stdout with --json; otherwise tampering is one sentence on stderr via the caller. */
function verificationJson(v: Verification): unknown {
  if (v.status === 'intact')
    return {
      status: 'intact',
      files: v.manifest.files.length,
      records: v.records.length,
      head: v.manifest.trace.head,
    };
  return v;
}

function label(passed: boolean | null): string {
  return passed === null ? 'absent' : passed ? 'passed' : 'failed';
}

function describe(r: TraceRecord): string {
  switch (r.kind) {
    case 'run':
      return `run ${r.run_id} ${r.started_at} → ${r.finished_at}${r.stopped ? ` (stopped: ${r.stopped})` : ''}`;
    case 'evidence':
    case 'report':
      return `${r.kind} ${r.file} ${r.bytes} B sha256 ${r.sha256.slice(0, 12)}`;
    case 'command':
      return `command ${r.id} [${r.role}] ${r.argv.join(' ')} → ${r.exit_code ?? 'no exit code'}`;
    case 'check':
      return `check ${r.id} ${r.passed ? 'passed' : `FAILED (${r.severity})`}`;
    case 'alert':
      return `alert ${r.rule} (${r.severity}) on ${r.syscall} event ${r.event_seq}${r.phase ? ` during the ${r.phase}` : ''}`;
    case 'score':
      return `score ${r.score} → ${r.result}`;
    case 'seal':
      return `seal: ${r.files} files, facts ${r.facts_sha256.slice(0, 12)}, files ${r.files_sha256.slice(0, 12)}`;
  }
}
