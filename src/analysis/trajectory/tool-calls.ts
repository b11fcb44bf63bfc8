import type { ModelExchange } from '../../evidence/model-evidence.js';

/**
 * The tool calls the model asked for, in the order it asked, read from the agent-neutral record the
 * scripted model keeps. A shell call (codex `exec_command`/`shell`, claude-code `Bash`, gemini-cli
 * `run_shell_command`, opencode `bash`) carries the command line; an edit call (`apply_patch`,
 * `Edit`, `Write`, `write_file`, `replace`, `edit`) the files it names. Anything else is kept by name.
 */

export type ToolCall = {
  /** 1-based position among all tool calls of the run. */
  step: number;
  /** The exchange whose answer carried it. */
  exchange: number;
  turn: number | null;
  name: string;
  kind: 'shell' | 'edit' | 'other';
  /** The command line of a shell call, as one string. */
  command?: string;
  /** Paths an edit call names. */
  paths?: string[];
  /** What the model said with the call, cut. */
  said: string;
  /** Unix epoch ms of the answer that carried the call, when the record has it. */
  at?: number;
};

const SHELL = /^(exec_command|shell|shell_command|bash|run_shell_command|run_command|terminal)$/i;
const EDIT =
  /^(apply_patch|edit|write|write_file|replace|multiedit|str_replace_based_edit_tool|create_file)$/i;
const PATH_KEYS = ['path', 'file_path', 'filePath', 'file', 'filename', 'absolute_path'];
const SAID_LIMIT = 200;

export function toolCallsOf(exchanges: readonly ModelExchange[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const ex of exchanges) {
    for (const tc of ex.response.tool_calls) {
      const args = parseArgs(tc.arguments);
      const base = {
        step: calls.length + 1,
        exchange: ex.seq,
        turn: ex.turn,
        name: tc.name,
        said: ex.response.text.slice(0, SAID_LIMIT),
        ...(ex.at !== undefined ? { at: ex.at + ex.duration_ms } : {}),
      };
      const command = commandOf(args);
      if (SHELL.test(tc.name) && command !== null) calls.push({ ...base, kind: 'shell', command });
      else if (EDIT.test(tc.name)) calls.push({ ...base, kind: 'edit', paths: pathsOf(args, tc.arguments) });
      else calls.push({ ...base, kind: 'other' });
    }
  }
  return calls;
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function commandOf(args: Record<string, unknown>): string | null {
  const v = args.cmd ?? args.command;
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((a) => typeof a === 'string')) {
    // codex's older `shell` tool: ["bash", "-lc", "the command"]; the command is what the model wrote.
    const argv = v as string[];
    return argv.length === 3 && /^-l?c$/.test(argv[1] ?? '') ? (argv[2] as string) : argv.join(' ');
  }
  return null;
}

/** Paths named by an edit call: its path arguments, or the files of an apply_patch body. */
function pathsOf(args: Record<string, unknown>, raw: string): string[] {
  const named = PATH_KEYS.map((k) => args[k]).filter((v): v is string => typeof v === 'string');
  if (named.length > 0) return named;
  const body =
    typeof args.input === 'string' ? args.input : typeof args.patch === 'string' ? args.patch : raw;
  return [...body.matchAll(/\*\*\* (?:Add|Update|Delete) File: (.+)/g)].map((m) => (m[1] as string).trim());
}
