import type { OfferedTool } from './types.js';
import { isObj } from './wire.js';

/** Shell tools of known agents, most specific first: codex, claude-code, gemini-cli, opencode, others. */
const KNOWN_SHELL_TOOLS = ['exec_command', 'shell', 'shell_command', 'Bash', 'run_shell_command', 'bash'];
const SHELL_LIKE = /(^|_)(shell|bash|exec|terminal|command)($|_)/i;

/**
 * Map a scripted shell command onto the shell tool the agent offers, shaping the arguments from the
 * tool's own schema (`cmd` for codex's exec_command, `command` for Bash, an argv for codex's old
 * `shell`). Null when the request offers no shell-like tool.
 */
export function mapShellCall(
  command: string,
  tools: readonly OfferedTool[],
): { name: string; args: Record<string, unknown> } | null {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const tool =
    KNOWN_SHELL_TOOLS.map((n) => byName.get(n)).find((t) => t !== undefined) ??
    tools.find((t) => SHELL_LIKE.test(t.name));
  if (!tool) return null;
  const props = isObj(tool.schema?.properties) ? tool.schema.properties : {};
  const key = !('command' in props) && ('cmd' in props || tool.name === 'exec_command') ? 'cmd' : 'command';
  const prop = props[key];
  const wantsArgv = isObj(prop) && prop.type === 'array';
  const args: Record<string, unknown> = { [key]: wantsArgv ? ['bash', '-lc', command] : command };
  const required = Array.isArray(tool.schema?.required) ? tool.schema.required : [];
  // Some shell tools (opencode's bash) require a description of the command.
  if (required.includes('description') && !('description' in args)) args.description = 'scripted command';
  return { name: tool.name, args };
}
