import path from 'node:path';
import { closestKey } from '../../config/closest-key.js';
import { readYamlFile } from '../../config/yaml.js';
import { ConfigError } from '../../errors.js';
import type {
  Alternative,
  Condition,
  ScriptedCall,
  SideRequestMode,
  Trajectory,
  Turn,
  TurnBody,
} from './types.js';

const TOP_KEYS = ['name', 'turns', 'side_requests', 'side_reply', 'loop_limit', 'max_turns'] as const;
const BODY_KEYS = ['text', 'final', 'shell', 'calls', 'next'] as const;
const TURN_KEYS = ['id', 'when', ...BODY_KEYS] as const;
const CONDITION_KEYS = ['contains', 'not_contains', 'regex'] as const;
const ALT_KEYS = [...CONDITION_KEYS, ...BODY_KEYS] as const;
const CALL_KEYS = ['shell', 'tool', 'args'] as const;

export const DEFAULT_LOOP_LIMIT = 3;
export const DEFAULT_MAX_TURNS = 100;
export const DEFAULT_SIDE_REPLY = 'OK';

type Fail = (where: string, message: string, fix: string) => never;
type Obj = Record<string, unknown>;

/** Read and validate a trajectory file (YAML or JSON); a bad file throws one ConfigError. */
export function loadTrajectory(file: string): Trajectory {
  const source = path.resolve(file);
  const fail: Fail = failer(source);
  const yaml = readYamlFile(source, 'YAML or JSON');
  if (!yaml.ok) {
    const { problem } = yaml;
    if (problem.read === 'missing')
      fail('', 'the trajectory file does not exist', 'check the path passed to --script');
    if (problem.read === 'not-a-file' && /folder/.test(problem.message))
      fail('', 'this is a folder, not a trajectory file', 'pass the YAML or JSON file');
    fail('', problem.message, problem.line ? 'correct the syntax there' : problem.fix);
  }
  return parseTrajectory(yaml.value, source);
}

/** Validate an already-parsed trajectory (a mapping with `turns`, or a bare list of turns). */
export function parseTrajectory(raw: unknown, source: string): Trajectory {
  const fail: Fail = failer(source);
  const top: Obj = Array.isArray(raw) ? { turns: raw } : isObj(raw) ? raw : {};
  if (!Array.isArray(raw) && !isObj(raw))
    fail(
      '',
      'must be a mapping with a `turns` list (or a bare list of turns)',
      'start the file with `turns:`',
    );
  checkKeys(top, TOP_KEYS, '', fail);
  const turnsRaw = top.turns;
  if (!Array.isArray(turnsRaw) || turnsRaw.length === 0)
    fail(
      "field 'turns'",
      'must be a non-empty list of turns',
      'add `turns:` with items such as `- shell: ls` and `- final: done`',
    );

  const turns = (turnsRaw as unknown[]).map((t, i) => parseTurn(t, i + 1, fail));
  const ids = new Map<string, number>();
  for (const t of turns) {
    if (t.id === null) continue;
    const prev = ids.get(t.id);
    if (prev !== undefined)
      fail(`turn ${t.index}`, `repeats id '${t.id}' of turn ${prev}`, 'give each turn its own id');
    ids.set(t.id, t.index);
  }
  for (const t of turns) {
    const bodies = t.kind === 'body' ? [t.body] : t.alternatives;
    for (const [i, b] of bodies.entries()) {
      if (b.next !== null && !ids.has(b.next)) {
        const near = closestKey(b.next, [...ids.keys()]);
        fail(
          t.kind === 'when' ? `turn ${t.index}, alternative ${i + 1}` : `turn ${t.index}`,
          `field 'next' names turn id '${b.next}', which no turn has`,
          near ? `did you mean '${near}'?` : 'add `id:` to the target turn',
        );
      }
    }
  }

  const sideRequests =
    optionalEnum(top.side_requests, ['no-tools', 'never'], 'side_requests', fail) ?? 'no-tools';
  return {
    source,
    name:
      optionalString(top.name, "field 'name'", fail) ?? path.basename(source).replace(/\.(ya?ml|json)$/, ''),
    turns,
    sideRequests: sideRequests as SideRequestMode,
    sideReply: optionalString(top.side_reply, "field 'side_reply'", fail) ?? DEFAULT_SIDE_REPLY,
    loopLimit: optionalCount(top.loop_limit, 'loop_limit', fail) ?? DEFAULT_LOOP_LIMIT,
    maxTurns: optionalCount(top.max_turns, 'max_turns', fail) ?? DEFAULT_MAX_TURNS,
  };
}

function parseTurn(raw: unknown, index: number, fail: Fail): Turn {
  const where = `turn ${index}`;
  if (typeof raw === 'string')
    return { index, id: null, kind: 'body', body: { text: raw, calls: [], next: null } };
  if (!isObj(raw))
    fail(where, 'must be a mapping such as `shell: ls` or `final: done`', 'write the turn as a YAML mapping');
  checkKeys(raw, TURN_KEYS, where, fail);
  const id = optionalString(raw.id, `${where}: field 'id'`, fail);
  if (raw.when === undefined) return { index, id, kind: 'body', body: parseBody(raw, where, fail) };

  const bodyKeys = BODY_KEYS.filter((k) => raw[k] !== undefined);
  if (bodyKeys.length > 0)
    fail(
      where,
      `has both 'when' and '${bodyKeys[0]}'`,
      "move the answer into an alternative of 'when' (one without a condition is the default)",
    );
  if (!Array.isArray(raw.when) || raw.when.length === 0)
    fail(
      where,
      "field 'when' must be a non-empty list of alternatives",
      'write `when:` then items like `- contains: FAIL` with `shell:` or `final:`',
    );
  const alternatives = raw.when.map((a, i): Alternative => {
    const at = `${where}, alternative ${i + 1}`;
    if (!isObj(a)) fail(at, 'must be a mapping', 'write e.g. `- contains: ok` and `final: done`');
    checkKeys(a, ALT_KEYS, at, fail);
    const condition = parseCondition(a, at, fail);
    if (condition === null && i < (raw.when as unknown[]).length - 1)
      fail(
        at,
        'has no condition but is not the last alternative',
        'put the default alternative last, or add `contains:`/`regex:`',
      );
    return { ...parseBody(a, at, fail), condition };
  });
  return { index, id, kind: 'when', alternatives };
}

function parseBody(raw: Obj, where: string, fail: Fail): TurnBody {
  const text = optionalString(raw.text, `${where}: field 'text'`, fail);
  const final = optionalString(raw.final, `${where}: field 'final'`, fail);
  const next = optionalString(raw.next, `${where}: field 'next'`, fail);
  const calls: ScriptedCall[] = [];
  if (raw.shell !== undefined) {
    const list = Array.isArray(raw.shell) ? raw.shell : [raw.shell];
    for (const cmd of list) {
      if (typeof cmd !== 'string' || cmd.trim() === '')
        fail(
          where,
          "field 'shell' must be a command string or a list of them",
          'write e.g. `shell: npm test`',
        );
      calls.push({ kind: 'shell', command: cmd });
    }
  }
  if (raw.calls !== undefined) {
    if (!Array.isArray(raw.calls) || raw.calls.length === 0)
      fail(
        where,
        "field 'calls' must be a non-empty list",
        'write e.g. `calls: [{shell: ls}, {tool: Read, args: {file_path: README.md}}]`',
      );
    raw.calls.forEach((c, i) => {
      calls.push(parseCall(c, `${where}, call ${i + 1}`, fail));
    });
  }
  if (final !== null && (text !== null || calls.length > 0))
    fail(
      where,
      "field 'final' cannot be combined with 'text', 'shell' or 'calls'",
      "use 'text' with the calls, and put the final answer in a later turn",
    );
  if (final === null && text === null && calls.length === 0)
    fail(where, 'says nothing and calls nothing', 'add `shell:`, `calls:`, `text:` or `final:`');
  return { text: final ?? text, calls, next };
}

function parseCall(raw: unknown, where: string, fail: Fail): ScriptedCall {
  if (!isObj(raw)) fail(where, 'must be a mapping', 'write `shell: CMD` or `tool: NAME` with `args: {...}`');
  checkKeys(raw, CALL_KEYS, where, fail);
  if (raw.shell !== undefined) {
    if (raw.tool !== undefined || raw.args !== undefined)
      fail(where, "mixes 'shell' with 'tool'/'args'", 'split it into two calls');
    if (typeof raw.shell !== 'string' || raw.shell.trim() === '')
      fail(where, "field 'shell' must be a command string", 'write e.g. `shell: cat README.md`');
    return { kind: 'shell', command: raw.shell };
  }
  if (typeof raw.tool !== 'string' || raw.tool === '')
    fail(where, "needs 'shell' or 'tool'", 'write `shell: CMD`, or `tool: NAME` with `args: {...}`');
  const args = raw.args ?? {};
  if (!isObj(args))
    fail(
      where,
      "field 'args' must be a mapping of the tool's arguments",
      'write e.g. `args: {file_path: README.md}`',
    );
  return { kind: 'tool', name: raw.tool, args };
}

function parseCondition(raw: Obj, where: string, fail: Fail): Condition | null {
  if (!CONDITION_KEYS.some((k) => raw[k] !== undefined)) return null;
  const condition: Condition = {};
  const contains = optionalString(raw.contains, `${where}: field 'contains'`, fail);
  const notContains = optionalString(raw.not_contains, `${where}: field 'not_contains'`, fail);
  const regex = optionalString(raw.regex, `${where}: field 'regex'`, fail);
  if (contains !== null) condition.contains = contains;
  if (notContains !== null) condition.not_contains = notContains;
  if (regex !== null) condition.regex = compileRegex(regex, where, fail);
  return condition;
}

/** `pattern` or `/pattern/flags`. */
function compileRegex(text: string, where: string, fail: Fail): RegExp {
  const slashed = /^\/(.*)\/([a-z]*)$/s.exec(text);
  try {
    return slashed ? new RegExp(slashed[1] ?? '', slashed[2]) : new RegExp(text);
  } catch (err) {
    return fail(
      where,
      `field 'regex' is not a valid regular expression (${(err as Error).message})`,
      'fix the pattern (JavaScript syntax)',
    );
  }
}

function failer(source: string): Fail {
  return (where, message, fix) => {
    const at = where ? `${source}: ${where}` : source;
    throw new ConfigError(`${at}: ${message}. Fix: ${fix}${/[.?]$/.test(fix) ? '' : '.'}`);
  };
}

function checkKeys(raw: Obj, known: readonly string[], where: string, fail: Fail): void {
  for (const key of Object.keys(raw)) {
    if (known.includes(key)) continue;
    const near = closestKey(key, known);
    fail(
      where || 'top level',
      `has unknown field '${key}'`,
      near ? `did you mean '${near}'?` : `use one of: ${known.join(', ')}`,
    );
  }
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function optionalString(v: unknown, where: string, fail: Fail): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v !== 'string') fail(where, 'must be a string', 'quote the value');
  return v;
}

function optionalCount(v: unknown, key: string, fail: Fail): number | null {
  if (v === undefined) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    fail(`field '${key}'`, 'must be a whole number of at least 1', `write e.g. \`${key}: 3\``);
  return v;
}

function optionalEnum(v: unknown, values: readonly string[], key: string, fail: Fail): string | null {
  if (v === undefined) return null;
  if (typeof v !== 'string' || !values.includes(v))
    fail(`field '${key}'`, `must be one of ${values.join(', ')}`, `write e.g. \`${key}: ${values[0]}\``);
  return v as string;
}
