import YAML from 'yaml';
import { errorMessage } from '../errors.js';
import { type BoundedReadError, readTextFile } from '../evidence/read.js';

/**
 * The one way agentguard parses YAML (configs, agent profiles, trajectories, rule files), so that
 * every loader has the same bounds: a size cap, and a cap on alias expansion — a "billion laughs"
 * document of nested aliases would otherwise grow without end in memory.
 */
export const YAML_LIMITS = {
  /** Bytes of one YAML file; real configs and rule files are a few KiB. */
  bytes: 4 * 1024 * 1024,
  /** Alias nodes resolved while building the value (the yaml library's own default is 100). */
  aliases: 100,
} as const;

/** A YAML problem as a clause without the file name, and its fix, for the caller's one sentence. */
export type YamlProblem = {
  message: string;
  fix: string;
  /** 1-based position of a syntax error, when there is one. */
  line?: { line: number; col: number };
  /** Set when the file could not be read at all. */
  read?: BoundedReadError['code'];
};

export type YamlResult = { ok: true; value: unknown } | { ok: false; problem: YamlProblem };

/** Parse YAML text (JSON is YAML too) within the size and alias limits. Pure. */
export function parseYaml(text: string, what = 'YAML'): YamlResult {
  if (Buffer.byteLength(text) > YAML_LIMITS.bytes) {
    return {
      ok: false,
      problem: {
        message: `is larger than the ${YAML_LIMITS.bytes / (1024 * 1024)} MiB agentguard reads from a YAML file`,
        fix: 'shorten it or split it',
      },
    };
  }
  const doc = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const reason = (first.message.split('\n')[0] ?? 'invalid syntax').replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    return {
      ok: false,
      problem: {
        message: `is not valid ${what}${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${reason}`,
        fix: 'correct the syntax there',
        ...(pos ? { line: { line: pos.line, col: pos.col } } : {}),
      },
    };
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: YAML_LIMITS.aliases }) };
  } catch (err) {
    const excessive = /alias/i.test(errorMessage(err));
    return {
      ok: false,
      problem: excessive
        ? {
            message: `expands YAML aliases more than ${YAML_LIMITS.aliases} times (nested aliases can make a tiny file huge)`,
            fix: 'write the values out instead of using so many aliases (*name)',
          }
        : { message: `is not valid ${what}: ${errorMessage(err)}`, fix: 'correct the syntax' },
    };
  }
}

/** Read (bounded: regular files only, size-capped) and parse a YAML file. */
export function readYamlFile(file: string, what = 'YAML'): YamlResult {
  const read = readTextFile(file, YAML_LIMITS.bytes);
  if (!read.ok) {
    const fix =
      read.error.code === 'missing'
        ? 'check the path'
        : read.error.code === 'unreadable'
          ? 'check its permissions'
          : read.error.code === 'too-big'
            ? 'shorten it or split it'
            : 'pass a regular file';
    return { ok: false, problem: { message: read.error.detail, fix, read: read.error.code } };
  }
  return parseYaml(read.text, what);
}
