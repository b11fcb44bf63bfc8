import path from 'node:path';
import { readYamlValue, validateYamlValue, type YamlFileKind } from '../../config/load-yaml-file.js';
import { ConfigError } from '../../errors.js';
import {
  type AlternativeData,
  CONDITION_KEYS,
  compileRegex,
  TrajectorySchema,
  type TurnData,
} from './trajectory-schema.js';
import type {
  Alternative,
  Condition,
  ScriptedCall,
  SideRequestMode,
  Trajectory,
  Turn,
  TurnBody,
} from './types.js';

export const DEFAULT_LOOP_LIMIT = 3;
export const DEFAULT_MAX_TURNS = 100;
export const DEFAULT_SIDE_REPLY = 'OK';

/** How a trajectory file is named in its issues, and where its format is documented. */
const TRAJECTORY_FILE: YamlFileKind = {
  what: 'trajectory',
  docs: 'src/agents/model-server/README.md',
  syntax: 'YAML or JSON',
  missingFix: 'check the path passed to --script',
  notMapping: {
    message: 'must be a mapping with a `turns` list (or a bare list of turns)',
    fix: 'start the file with `turns:`',
  },
};

/** Read and validate a trajectory file (YAML or JSON); a bad file throws a ConfigError with every issue. */
export function loadTrajectory(file: string): Trajectory {
  const source = path.resolve(file);
  const yaml = readYamlValue(source, TRAJECTORY_FILE);
  if (!yaml.ok) throw new ConfigError(yaml.issues);
  return parseTrajectory(yaml.value, source);
}

/** Validate an already-parsed trajectory (a mapping with `turns`, or a bare list of turns). */
export function parseTrajectory(raw: unknown, source: string): Trajectory {
  const doc = Array.isArray(raw) ? { turns: raw } : raw;
  const parsed = validateYamlValue(source, doc, TrajectorySchema, TRAJECTORY_FILE);
  if (!parsed.ok) throw new ConfigError(parsed.issues);
  const t = parsed.value;
  return {
    source,
    name: text(t.name) ?? path.basename(source).replace(/\.(ya?ml|json)$/, ''),
    turns: t.turns.map((turn, i) => toTurn(turn, i + 1)),
    sideRequests: (t.side_requests ?? 'no-tools') as SideRequestMode,
    sideReply: text(t.side_reply) ?? DEFAULT_SIDE_REPLY,
    loopLimit: t.loop_limit ?? DEFAULT_LOOP_LIMIT,
    maxTurns: t.max_turns ?? DEFAULT_MAX_TURNS,
  };
}

function toTurn(raw: string | TurnData, index: number): Turn {
  if (typeof raw === 'string')
    return { index, id: null, kind: 'body', body: { text: raw, calls: [], next: null } };
  const id = text(raw.id);
  if (raw.when === undefined) return { index, id, kind: 'body', body: toBody(raw) };
  const alternatives = raw.when.map((a): Alternative => ({ ...toBody(a), condition: toCondition(a) }));
  return { index, id, kind: 'when', alternatives };
}

function toBody(raw: TurnData | AlternativeData): TurnBody {
  const calls: ScriptedCall[] = [];
  if (raw.shell !== undefined)
    for (const command of Array.isArray(raw.shell) ? raw.shell : [raw.shell])
      calls.push({ kind: 'shell', command });
  for (const call of raw.calls ?? []) {
    calls.push(
      call.shell !== undefined
        ? { kind: 'shell', command: call.shell }
        : { kind: 'tool', name: call.tool as string, args: call.args ?? {} },
    );
  }
  return { text: text(raw.final) ?? text(raw.text), calls, next: text(raw.next) };
}

function toCondition(raw: AlternativeData): Condition | null {
  if (!CONDITION_KEYS.some((k) => raw[k] !== undefined)) return null;
  const condition: Condition = {};
  const contains = text(raw.contains);
  const notContains = text(raw.not_contains);
  const regex = text(raw.regex);
  if (contains !== null) condition.contains = contains;
  if (notContains !== null) condition.not_contains = notContains;
  if (regex !== null) condition.regex = compileRegex(regex);
  return condition;
}

/** A text field's value: absent and null are null, a bare number or boolean its text. */
function text(v: string | number | boolean | null | undefined): string | null {
  return v === undefined || v === null ? null : String(v);
}
