import { z } from 'zod';
import { closestKey } from '../../config/closest-key.js';
import { errorMessage } from '../../errors.js';

/*
 * The trajectory file format as a zod schema, so that it is read like every other file a user
 * writes (loadYamlFile): every problem at once, each with its field path and fix, and "did you mean"
 * from these shapes. The checks are the hand-written ones this replaced, with their sentences.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A value `test` accepts, or the trajectory's own sentence and fix. */
const must = <T>(test: (v: unknown) => boolean, message: string, fix: string) =>
  z.custom<T>(test, { message, params: { fix } });

/** Text fields take a string; a bare YAML number or boolean is read as its text. */
const Text = must<string | number | boolean | null>(
  (v) => v === null || ['string', 'number', 'boolean'].includes(typeof v),
  'must be a string',
  'quote the value',
).optional();

const isCommand = (v: unknown) => typeof v === 'string' && v.trim() !== '';

const nonEmptyList = <T extends z.ZodType>(item: T, message: string, fix: string) =>
  must<unknown[]>((v) => Array.isArray(v) && v.length > 0, message, fix).pipe(z.array(item));

const mapping = <T extends z.ZodType>(schema: T, message: string, fix: string) =>
  must<unknown>(isObj, message, fix).pipe(schema);

const CallSchema = mapping(
  z
    .strictObject({
      shell: must<string>(
        isCommand,
        'must be a command string',
        'write e.g. `shell: cat README.md`',
      ).optional(),
      tool: z.unknown().optional(),
      args: must<Obj>(
        isObj,
        "must be a mapping of the tool's arguments",
        'write e.g. `args: {file_path: README.md}`',
      ).optional(),
    })
    .superRefine((call, ctx) => {
      if (call.shell !== undefined) {
        if (call.tool !== undefined || call.args !== undefined)
          issue(ctx, [], "mixes 'shell' with 'tool'/'args'", 'split it into two calls');
      } else if (typeof call.tool !== 'string' || call.tool === '') {
        issue(ctx, [], "needs 'shell' or 'tool'", 'write `shell: CMD`, or `tool: NAME` with `args: {...}`');
      }
    }),
  'must be a mapping',
  'write `shell: CMD` or `tool: NAME` with `args: {...}`',
);

/** What the model says in a turn or an alternative. */
const BODY = {
  text: Text,
  final: Text,
  next: Text,
  shell: must<string | string[]>(
    (v) => isCommand(v) || (Array.isArray(v) && v.every(isCommand)),
    'must be a command string or a list of them',
    'write e.g. `shell: npm test`',
  ).optional(),
  calls: nonEmptyList(
    CallSchema,
    'must be a non-empty list',
    'write e.g. `calls: [{shell: ls}, {tool: Read, args: {file_path: README.md}}]`',
  ).optional(),
};
export const BODY_KEYS = Object.keys(BODY) as (keyof typeof BODY)[];

/** A condition on the latest input; an alternative without one is the default. */
const CONDITION = { contains: Text, not_contains: Text, regex: Text };
export const CONDITION_KEYS = Object.keys(CONDITION) as (keyof typeof CONDITION)[];

type Body = { text?: unknown; final?: unknown; shell?: unknown; calls?: unknown };

function checkBody(body: Body, ctx: z.RefinementCtx): void {
  const calls = body.shell !== undefined || (Array.isArray(body.calls) && body.calls.length > 0);
  const said = (v: unknown) => v !== undefined && v !== null;
  if (said(body.final) && (said(body.text) || calls))
    issue(
      ctx,
      ['final'],
      "cannot be combined with 'text', 'shell' or 'calls'",
      "use 'text' with the calls, and put the final answer in a later turn",
    );
  if (!said(body.final) && !said(body.text) && !calls)
    issue(ctx, [], 'says nothing and calls nothing', 'add `shell:`, `calls:`, `text:` or `final:`');
}

/** `pattern` or `/pattern/flags`. */
export function compileRegex(text: string): RegExp {
  const slashed = /^\/(.*)\/([a-z]*)$/s.exec(text);
  return slashed ? new RegExp(slashed[1] ?? '', slashed[2]) : new RegExp(text);
}

const AlternativeSchema = mapping(
  z.strictObject({ ...CONDITION, ...BODY }).superRefine((alt, ctx) => {
    checkBody(alt, ctx);
    if (alt.regex === undefined || alt.regex === null) return;
    try {
      compileRegex(String(alt.regex));
    } catch (err) {
      issue(
        ctx,
        ['regex'],
        `is not a valid regular expression (${errorMessage(err)})`,
        'fix the pattern (JavaScript syntax)',
      );
    }
  }),
  'must be a mapping',
  'write e.g. `- contains: ok` and `final: done`',
);

const hasCondition = (alt: unknown) => isObj(alt) && CONDITION_KEYS.some((k) => alt[k] !== undefined);

const TurnObjectSchema = z
  .strictObject({
    id: Text,
    when: nonEmptyList(
      AlternativeSchema,
      'must be a non-empty list of alternatives',
      'write `when:` then items like `- contains: FAIL` with `shell:` or `final:`',
    ).optional(),
    ...BODY,
  })
  .superRefine((turn, ctx) => {
    if (turn.when === undefined) return checkBody(turn, ctx);
    const answer = BODY_KEYS.find((k) => turn[k] !== undefined);
    if (answer)
      issue(
        ctx,
        [],
        `has both 'when' and '${answer}'`,
        "move the answer into an alternative of 'when' (one without a condition is the default)",
      );
    const alternatives: unknown[] = Array.isArray(turn.when) ? turn.when : [];
    alternatives.forEach((alt, i) => {
      if (!hasCondition(alt) && i < alternatives.length - 1)
        issue(
          ctx,
          ['when', i],
          'has no condition but is not the last alternative',
          'put the default alternative last, or add `contains:`/`regex:`',
        );
    });
  });

/** A turn: a mapping, or a plain string as the final answer. */
const TurnSchema = must<string | Obj>(
  (v) => typeof v === 'string' || isObj(v),
  'must be a mapping such as `shell: ls` or `final: done`',
  'write the turn as a YAML mapping',
).pipe(z.union([z.string(), TurnObjectSchema]));

const count = (key: string) =>
  must<number>(
    (v) => typeof v === 'number' && Number.isInteger(v) && v >= 1,
    'must be a whole number of at least 1',
    `write e.g. \`${key}: 3\``,
  ).optional();

export const SIDE_REQUEST_MODES = ['no-tools', 'never'] as const;

export const TrajectorySchema = z
  .strictObject({
    name: Text,
    turns: nonEmptyList(
      TurnSchema,
      'must be a non-empty list of turns',
      'add `turns:` with items such as `- shell: ls` and `- final: done`',
    ),
    side_requests: must<(typeof SIDE_REQUEST_MODES)[number]>(
      (v) => (SIDE_REQUEST_MODES as readonly unknown[]).includes(v),
      `must be one of ${SIDE_REQUEST_MODES.join(', ')}`,
      `write e.g. \`side_requests: ${SIDE_REQUEST_MODES[0]}\``,
    ).optional(),
    side_reply: Text,
    loop_limit: count('loop_limit'),
    max_turns: count('max_turns'),
  })
  .superRefine((doc, ctx) => checkTurnIds(Array.isArray(doc.turns) ? doc.turns : [], ctx));

export type TrajectoryData = z.output<typeof TrajectorySchema>;
export type TurnData = z.output<typeof TurnObjectSchema>;
export type AlternativeData = z.output<typeof AlternativeSchema>;

/** Ids are unique, and every `next` names one of them. */
function checkTurnIds(turns: readonly unknown[], ctx: z.RefinementCtx): void {
  const ids = new Map<string, number>();
  turns.forEach((turn, i) => {
    if (!isObj(turn) || turn.id === undefined || turn.id === null) return;
    const id = String(turn.id);
    const first = ids.get(id);
    if (first !== undefined)
      issue(
        ctx,
        ['turns', i, 'id'],
        `repeats the id '${id}' of turns[${first}]`,
        'give each turn its own id',
      );
    else ids.set(id, i);
  });
  turns.forEach((turn, i) => {
    if (!isObj(turn)) return;
    const bodies: [PropertyKey[], unknown][] = Array.isArray(turn.when)
      ? turn.when.map((alt, j) => [['turns', i, 'when', j], alt])
      : [[['turns', i], turn]];
    for (const [at, body] of bodies) {
      if (!isObj(body) || body.next === undefined || body.next === null) continue;
      const next = String(body.next);
      if (ids.has(next)) continue;
      const near = closestKey(next, [...ids.keys()]);
      issue(
        ctx,
        [...at, 'next'],
        `names turn id '${next}', which no turn has`,
        near ? `did you mean '${near}'?` : 'add `id:` to the target turn',
        near ?? undefined,
      );
    }
  });
}

function issue(
  ctx: z.RefinementCtx,
  path: PropertyKey[],
  message: string,
  fix: string,
  suggestion?: string,
): void {
  ctx.addIssue({ code: 'custom', path, message, params: { fix, ...(suggestion ? { suggestion } : {}) } });
}
