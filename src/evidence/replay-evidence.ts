import { z } from 'zod';

/**
 * What a model replay (`agentguard run CONFIG --replay RUN_DIR`) was replaying
 * (`evidence/replay.json`): the recorded run, its verdict, and each agent request it recorded in
 * the order answered, so that the analysis can name the first turn where the replaying agent asked
 * for something else. Written by the harness before the agent starts; the agent cannot reach it.
 */
export const RecordedRequestSchema = z.strictObject({
  /** Model turns already in the conversation when the agent asked. */
  step: z.number().int().min(0),
  tools_offered: z.array(z.string()),
  /** The tool outputs the request carried, each cut as the model record cuts it. */
  tool_outputs: z.array(z.string()),
});

export const ReplaySourceSchema = z.strictObject({
  from_run: z.string(),
  from_dir: z.string(),
  task: z.string(),
  recorded_result: z.string(),
  requests: z.array(RecordedRequestSchema),
});

export type RecordedRequest = z.output<typeof RecordedRequestSchema>;
export type ReplaySource = z.output<typeof ReplaySourceSchema>;
