import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { isMissing, READ_LIMITS, readEvidenceText } from './read.js';

/**
 * The scripted model's exchanges as the analyses read them back (`evidence/model.jsonl`, written
 * by src/agents/model-server). Only the fields the join with the syscalls uses are checked. The
 * file is read leniently: a record cut mid-line (the run was killed) or of the wrong shape ends
 * the reading there, and `problem` says so. What the model said is context for the syscall
 * evidence, so a damaged transcript must not stop the rest of the report.
 */

const ToolCallSchema = z.looseObject({ name: z.string(), arguments: z.string() });

export const ModelExchangeSchema = z.looseObject({
  seq: z.number(),
  ts: z.number(),
  /** Unix epoch ms of the request; absent in runs recorded before it was kept. */
  at: z.number().optional(),
  duration_ms: z.number(),
  kind: z.string(),
  turn: z.number().nullable(),
  request: z
    .looseObject({
      input_tokens: z.number().optional(),
      step: z.number().optional(),
      tools_offered: z.array(z.string()).optional(),
      tool_outputs: z.array(z.string()).optional(),
    })
    .nullable(),
  response: z.looseObject({
    text: z.string(),
    tool_calls: z.array(ToolCallSchema),
    output_tokens: z.number().optional(),
    stop: z.string(),
  }),
  /** Through the relay: the provider's usage as its answer stated it; null when it stated none. */
  usage: z
    .looseObject({
      api: z.string(),
      input_tokens: z.number(),
      output_tokens: z.number(),
      cached_tokens: z.number(),
    })
    .nullable()
    .optional(),
});

export type ModelExchange = z.output<typeof ModelExchangeSchema>;
export type ModelEvidence = { exchanges: ModelExchange[]; problem?: string };

/** The model exchanges of a run, or null when the run had no scripted model. */
export function readModelEvidence(file: string, within?: string): ModelEvidence | null {
  if (isMissing(file, within)) return null;
  let text: string;
  try {
    text = readEvidenceText(file, { maxBytes: READ_LIMITS.jsonl, within });
  } catch (err) {
    return { exchanges: [], problem: `evidence/model.jsonl could not be read: ${errorMessage(err)}` };
  }
  const exchanges: ModelExchange[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const cut = i === lines.length - 1 ? ' (cut mid-line: the run was ended while it was written)' : '';
      return {
        exchanges,
        problem: `evidence/model.jsonl line ${i + 1} is not JSON${cut}; the exchanges after it are not used`,
      };
    }
    const parsed = ModelExchangeSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        exchanges,
        problem: `evidence/model.jsonl line ${i + 1} is not a model exchange (${issue?.path.join('.') || 'record'}: ${issue?.message}); the exchanges after it are not used`,
      };
    }
    exchanges.push(parsed.data);
  }
  return { exchanges };
}
