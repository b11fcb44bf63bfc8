import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { errorMessage, SetupError } from '../../errors.js';
import type { ModelRecord, RecordKind } from './types.js';

/** Longest tool output kept in a record; the agent's own log has the rest. */
export const MAX_RECORDED_OUTPUT = 2000;

export function cut(text: string, limit = MAX_RECORDED_OUTPUT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…[${text.length - limit} more chars]`;
}

/** Keeps every record in memory and appends each, as one JSON line, to the record file if given. */
export class ModelRecorder {
  readonly records: ModelRecord[] = [];
  /** Set when appending to the file failed; the in-memory records stay complete. */
  writeError: string | null = null;

  constructor(private readonly file: string | null) {
    if (!file) return;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      appendFileSync(file, '');
    } catch (err) {
      throw new SetupError(
        `cannot write the model record file ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}). Fix: pass a --record path in a writable folder.`,
        { cause: err },
      );
    }
  }

  add(record: ModelRecord): void {
    this.records.push(record);
    if (!this.file || this.writeError) return;
    try {
      appendFileSync(this.file, `${JSON.stringify(record)}\n`);
    } catch (err) {
      this.writeError = `appending to ${this.file} failed: ${errorMessage(err)}`;
    }
  }
}

export type ModelSummary = {
  requests: number;
  /** Scripted turns answered, retries not counted. */
  turns: number;
  by_kind: Partial<Record<RecordKind, number>>;
  input_tokens: number;
  output_tokens: number;
  /** Why the scripted model stopped answering, when it did (exhausted, loop, refusal, error). */
  problem: string | null;
};

/** Totals over the records, for reports and for failing a run whose agent looped. */
export function summarizeRecords(records: readonly ModelRecord[]): ModelSummary {
  const byKind: Partial<Record<RecordKind, number>> = {};
  let input = 0;
  let output = 0;
  let problem: string | null = null;
  for (const r of records) {
    byKind[r.kind] = (byKind[r.kind] ?? 0) + 1;
    input += r.request?.input_tokens ?? 0;
    output += r.response.output_tokens;
    if (problem === null && (r.kind === 'loop' || r.kind === 'refused' || r.kind === 'error'))
      problem = r.response.error ?? r.kind;
    if (problem === null && r.kind === 'exhausted') problem = r.response.text;
  }
  return {
    requests: records.length,
    turns: byKind.turn ?? 0,
    by_kind: byKind,
    input_tokens: input,
    output_tokens: output,
    problem,
  };
}
