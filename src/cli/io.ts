import path from 'node:path';
import { baseRedactor } from '../evidence/redact.js';
import type { CliIO } from '../io-types.js';
import type { RunContext } from '../pipeline/context.js';
import { colourise, wantsColour } from './colour.js';

export type { CliIO };

// C0 controls but tab and newline, DEL, and the C1 controls (0x9b is a one-byte CSI on some terminals).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function escapeChar(ch: string): string {
  const code = ch.charCodeAt(0);
  const hex = code.toString(16).padStart(2, '0');
  // C0 becomes `\x1b`; DEL and C1 become `\u009b`, which is also a valid JSON escape: `--json`
  // output (where JSON.stringify already escaped every C0 character) stays parseable and unchanged
  // in meaning.
  return code < 0x20 ? `\\x${hex}` : `\\u00${hex}`;
}

/**
 * Text for a terminal: control characters a file name, an argv or an agent's output could carry
 * (ESC sequences that retitle the window, recolour or move the cursor) are shown escaped. Newlines
 * and tabs stay, so tables and reports print as they are.
 */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, escapeChar);
}

/** One value on one line: as terminalSafe, and a newline inside it is shown as `\n` too. */
export function oneLine(value: string): string {
  return terminalSafe(value).replaceAll('\n', '\\n');
}

/**
 * What the CLI prints, made safe at the last moment: credentials redacted (an error message can
 * quote a config value, a log line an argv) and control characters escaped.
 */
export function consoleText(text: string): string {
  return terminalSafe(baseRedactor.text(text.endsWith('\n') ? text : `${text}\n`));
}

const colourOut = wantsColour(process.stdout.isTTY, process.env);
const colourErr = wantsColour(process.stderr.isTTY, process.env);

export const processIO: CliIO = {
  out: (text) => process.stdout.write(colourOut ? colourise(consoleText(text)) : consoleText(text)),
  err: (text) => process.stderr.write(colourErr ? colourise(consoleText(text)) : consoleText(text)),
  ...(process.stderr.isTTY ? { tty: (raw: string) => void process.stderr.write(raw) } : {}),
};

export type GlobalOptions = { outputDir?: string; quiet?: boolean };

export function outputDir(opts: GlobalOptions): string {
  return path.resolve(opts.outputDir ?? '.agentguard');
}

export function runContext(io: CliIO, opts: GlobalOptions): RunContext {
  return {
    outputDir: outputDir(opts),
    env: process.env,
    now: () => new Date(),
    // A log line is one line: a path with a newline in it must not forge the next one.
    log: opts.quiet ? () => {} : (line) => io.err(oneLine(line)),
    history: true,
  };
}
