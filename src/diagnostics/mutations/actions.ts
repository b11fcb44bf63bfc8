import { z } from 'zod';

/**
 * The closed set of things a mutation may do. Each is data: a path, a text, an argv. Workspace
 * actions change the copy of the fixture's repository after its baseline (so they are the change
 * under judgement); task actions change the copied fixture's config before the run is planned.
 * Nothing here runs the agent's code: what runs does so later, in the real test phase.
 */

/** Workspace-relative, never absolute and never climbing out: an action changes only the copy. */
const RelPath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\0'), {
    message: 'must be a workspace-relative path without ".." (actions change only the copied workspace)',
  });

export const WorkspaceActionSchema = z.discriminatedUnion('kind', [
  /** Copy the fixture's reference solution over the workspace: the honest fix (tests pass). */
  z.object({ kind: z.literal('apply-solution') }).strict(),
  /** Create or overwrite a file (folders made as needed). */
  z
    .object({
      kind: z.literal('write-file'),
      path: RelPath,
      text: z.string(),
      executable: z.boolean().optional(),
    })
    .strict(),
  /** Add text to the end of an existing file. */
  z.object({ kind: z.literal('append-file'), path: RelPath, text: z.string() }).strict(),
  /** Replace the first occurrence of `find` (which must be there) in an existing file. */
  z
    .object({ kind: z.literal('replace-text'), path: RelPath, find: z.string().min(1), replace: z.string() })
    .strict(),
  z.object({ kind: z.literal('delete-file'), path: RelPath }).strict(),
  z.object({ kind: z.literal('rename'), from: RelPath, to: RelPath }).strict(),
  /** A symbolic link at `path`; its target is free text (pointing out of the workspace is the point). */
  z.object({ kind: z.literal('symlink'), path: RelPath, target: z.string().min(1) }).strict(),
  /** Write `lines` generated lines into a new file: grows the diff past a size limit. */
  z
    .object({ kind: z.literal('grow-file'), path: RelPath, lines: z.number().int().min(1).max(100_000) })
    .strict(),
  /** Make `path` a git repository of its own (a `.git` folder with a HEAD) holding one file. */
  z.object({ kind: z.literal('nested-repo'), path: RelPath }).strict(),
  /**
   * Append to a module the tests load (by extension: .js/.mjs, .py or .sh) a line that runs `script`
   * with `sh -c` when it is loaded: code the tests execute, so what it does is seen by the tracer
   * in the test phase and judged by the security rules there.
   */
  z.object({ kind: z.literal('test-time-script'), path: RelPath, script: z.string().min(1) }).strict(),
]);

export const TaskActionSchema = z.discriminatedUnion('kind', [
  /**
   * The run's agent step runs this argv (in the sandbox, under the tracer) instead of doing
   * nothing: for the checks that judge the agent's own process tree (exit, commands, reads).
   */
  z.object({ kind: z.literal('agent-command'), argv: z.array(z.string()).min(1) }).strict(),
  /** Declare workspace paths grader-only (`grader_paths`) in the copied config. */
  z.object({ kind: z.literal('declare-grader-files'), paths: z.array(RelPath).min(1) }).strict(),
]);

export const ActionSchema = z.union([WorkspaceActionSchema, TaskActionSchema]);

export type WorkspaceAction = z.infer<typeof WorkspaceActionSchema>;
export type TaskAction = z.infer<typeof TaskActionSchema>;
export type Action = z.infer<typeof ActionSchema>;

export const WORKSPACE_ACTION_KINDS = WorkspaceActionSchema.options.map((o) => o.shape.kind.value);
export const TASK_ACTION_KINDS = TaskActionSchema.options.map((o) => o.shape.kind.value);
export const ACTION_KINDS: readonly string[] = [...WORKSPACE_ACTION_KINDS, ...TASK_ACTION_KINDS];

export function isTaskAction(action: Action): action is TaskAction {
  return (TASK_ACTION_KINDS as readonly string[]).includes(action.kind);
}
