import type { AnalysisResult } from '../analysis/types.js';
import { REPORT_FILES } from '../reports/reporters.js';
import type { ArtifactEntry } from './artifacts.js';
import { sha256Text } from './digest.js';
import type { TraceBody } from './trace-records.js';

export type TraceInput = {
  run: { run_id: string; started_at: string; finished_at: string; stopped?: string };
  /** The artifacts as walked before the trace is written (the trace and the manifest are not among them). */
  files: readonly ArtifactEntry[];
  /** Raw lines of evidence/commands.jsonl. */
  commandLines: readonly string[];
  analysis: AnalysisResult;
  facts_sha256: string;
  files_sha256: string;
};

const REPORTS = new Set(REPORT_FILES);

/**
 * The policy-relevant story of a run, in a fixed order: the run, each evidence file by content
 * hash, each command, the checks, the alerts, the score, the reports, then the seal. Pure.
 */
export function traceBodies(input: TraceInput): TraceBody[] {
  const { run, files, analysis } = input;
  const bodies: TraceBody[] = [
    {
      kind: 'run',
      run_id: run.run_id,
      started_at: run.started_at,
      finished_at: run.finished_at,
      stopped: run.stopped ?? null,
    },
  ];
  for (const f of files) {
    if (REPORTS.has(f.path)) continue;
    bodies.push({ kind: 'evidence', file: f.path, sha256: f.sha256, bytes: f.bytes });
  }
  for (const line of input.commandLines) {
    if (line.trim() === '') continue;
    const c = JSON.parse(line) as {
      id: string;
      role: string;
      display_argv: string[];
      exit_code: number | null;
    };
    bodies.push({
      kind: 'command',
      id: c.id,
      role: c.role,
      argv: c.display_argv,
      exit_code: c.exit_code,
      line_sha256: sha256Text(line),
    });
  }
  for (const c of analysis.checks) {
    bodies.push({ kind: 'check', id: c.id, passed: c.passed, severity: c.severity });
  }
  for (const a of analysis.alerts) {
    bodies.push({
      kind: 'alert',
      rule: a.rule,
      severity: a.severity,
      syscall: a.syscall,
      event_seq: a.seq,
      phase: a.phase ?? null,
    });
  }
  bodies.push({ kind: 'score', result: analysis.score.result, score: analysis.score.score });
  for (const f of files) {
    if (REPORTS.has(f.path)) bodies.push({ kind: 'report', file: f.path, sha256: f.sha256, bytes: f.bytes });
  }
  bodies.push({
    kind: 'seal',
    facts_sha256: input.facts_sha256,
    files_sha256: input.files_sha256,
    files: files.length,
  });
  return bodies;
}
