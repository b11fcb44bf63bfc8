/**
 * Agent command logs a pull request carries (or a CI job downloaded): what the agent says it ran.
 * They are claims, not observations — the commands ran on the agent's machine, not under this
 * tracer — so they are kept apart (role `agent-log`) and only add to what the checks see. Pure.
 */

/** One command found in a log, with the line it came from. */
export type LoggedCommand = { argv: string[]; cwd?: string; line: number };

export type ParsedAgentLog = {
  commands: LoggedCommand[];
  /** Lines that were not JSON, or JSON this reader does not know (counted, never fatal). */
  unreadable_lines: number;
  /** More commands than MAX_LOG_COMMANDS: the rest were not read. */
  truncated: boolean;
};

/** Commands read from one log; a PR's log is input, and its size must not decide our memory. */
export const MAX_LOG_COMMANDS = 10_000;

/** Tool names under which agents run shell commands: Claude Code, Codex, Gemini CLI, plain. */
const SHELL_TOOLS = new Set(['Bash', 'bash', 'shell', 'exec_command', 'run_shell_command', 'local_shell']);
const MAX_DEPTH = 8;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isArgv = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string');

/**
 * Read a JSON-lines log. Each line may be: an agentguard command record (`commands.jsonl`, its
 * `agent` commands), `{"argv": [...]}`, `{"command": "..." | [...]}` or `{"cmd": "..."}`, or a
 * transcript line holding tool calls — Claude Code's `tool_use` blocks (`Bash`), Codex's
 * `function_call` items (`exec_command`, `shell`), at any depth. A command given as one string ran
 * in a shell, so it becomes `sh -c <string>` (the unsafe-command check matches the script too).
 */
export function parseAgentLog(text: string): ParsedAgentLog {
  const out: ParsedAgentLog = { commands: [], unreadable_lines: 0, truncated: false };
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      out.unreadable_lines++;
      continue;
    }
    const found = commandsOfRecord(value);
    if (found === null) {
      out.unreadable_lines++;
      continue;
    }
    for (const c of found) {
      if (out.commands.length >= MAX_LOG_COMMANDS) {
        out.truncated = true;
        return out;
      }
      out.commands.push({ ...c, line: i + 1 });
    }
  }
  return out;
}

/** The commands of one line; null when the line is of no shape this reader knows. */
function commandsOfRecord(value: unknown): Omit<LoggedCommand, 'line'>[] | null {
  if (!isObject(value)) return null;
  // agentguard's own command record: only the agent's commands are the agent's claims.
  if (typeof value.role === 'string' && isArgv(value.argv))
    return value.role === 'agent' ? [withCwd(value.argv, value)] : [];
  if (isArgv(value.argv)) return [withCwd(value.argv, value)];
  const direct = commandOf(value);
  if (direct) return [direct];
  const calls: Omit<LoggedCommand, 'line'>[] = [];
  const known = findToolCalls(value, 0, calls);
  return known ? calls : null;
}

/**
 * Tool calls anywhere in a transcript record. Returns whether the record looked like a transcript
 * at all (it has a `type`, `message` or `payload`), so a line with no command is not "unreadable".
 */
function findToolCalls(value: Json, depth: number, into: Omit<LoggedCommand, 'line'>[]): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    let known = false;
    for (const v of value) known = findToolCalls(v, depth + 1, into) || known;
    return known;
  }
  if (!isObject(value)) return false;
  const name = typeof value.name === 'string' ? value.name : '';
  if (value.type === 'tool_use' && SHELL_TOOLS.has(name) && isObject(value.input)) {
    const c = commandOf(value.input);
    if (c) into.push(c);
    return true;
  }
  if (
    (value.type === 'function_call' || value.type === 'local_shell_call') &&
    (SHELL_TOOLS.has(name) || value.type === 'local_shell_call')
  ) {
    const args = parseArguments(value.arguments ?? value.action ?? null);
    const c = args ? commandOf(args) : null;
    if (c) into.push(c);
    return true;
  }
  let known = 'type' in value || 'message' in value || 'payload' in value;
  for (const v of Object.values(value)) known = findToolCalls(v, depth + 1, into) || known;
  return known;
}

function parseArguments(v: Json): Record<string, Json> | null {
  if (isObject(v)) return v;
  if (typeof v !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(v);
    return isObject(parsed) ? (parsed as Record<string, Json>) : null;
  } catch {
    return null;
  }
}

/** `{command|cmd: string | argv}` (with `cwd`/`workdir`) as a command. */
function commandOf(o: Record<string, Json>): Omit<LoggedCommand, 'line'> | null {
  const c = o.command ?? o.cmd;
  if (typeof c === 'string' && c.trim() !== '') return withCwd(['sh', '-c', c], o);
  if (isArgv(c)) return withCwd(c, o);
  return null;
}

function withCwd(argv: string[], o: Record<string, Json>): Omit<LoggedCommand, 'line'> {
  const cwd = typeof o.cwd === 'string' ? o.cwd : typeof o.workdir === 'string' ? o.workdir : undefined;
  return cwd === undefined ? { argv } : { argv, cwd };
}
