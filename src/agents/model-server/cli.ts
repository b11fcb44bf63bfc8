import { parseArgs } from 'node:util';
import { AgentGuardError, ConfigError, errorMessage, formatIssue } from '../../errors.js';
import type { CliIO } from '../../io-types.js';
import { startModelServer } from './index.js';
import { summarizeRecords } from './records.js';

export const USAGE = `usage: model-server --script FILE [--port N] [--record FILE] [--loop-limit N]

Replays the trajectory FILE (YAML or JSON) as a model endpoint on 127.0.0.1, speaking the OpenAI
Responses and Chat Completions APIs (base URL: printed URL + /v1), Anthropic Messages and the Gemini
API (base URL: the printed URL). Prints the URL once listening; runs until interrupted (SIGINT/SIGTERM).
  --script FILE      trajectory to replay (see src/agents/model-server/README.md)
  --port N           port to listen on (default: a free one)
  --record FILE      append one JSON line per request and answer (e.g. evidence/model.jsonl)
  --loop-limit N     answers to the same request before the agent counts as looping`;

/**
 * The standalone `model-server` command: parse argv, serve until `stop` resolves, return the exit
 * code (0 stopped cleanly, 2 usage, config or setup error).
 */
/** One line to `write` (CliIO writes text as given). */
const line = (write: (text: string) => void) => (text: string) => write(`${text}\n`);

export async function runModelServerCli(argv: string[], io: CliIO, stop: Promise<unknown>): Promise<number> {
  let values: { script?: string; port?: string; record?: string; 'loop-limit'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        script: { type: 'string' },
        port: { type: 'string' },
        record: { type: 'string' },
        'loop-limit': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    line(io.err)(`model-server: ${errorMessage(err)}. Fix: see the usage below.\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    line(io.out)(USAGE);
    return 0;
  }
  if (!values.script) {
    line(io.err)(
      `model-server: --script FILE is required. Fix: pass the trajectory file to replay.\n${USAGE}`,
    );
    return 2;
  }
  const port = wholeNumber(values.port, '--port', 0, 65535, io);
  const loopLimit = wholeNumber(values['loop-limit'], '--loop-limit', 1, 1_000_000, io);
  if (port === null || loopLimit === null) return 2;

  let running: Awaited<ReturnType<typeof startModelServer>>;
  try {
    running = await startModelServer({
      script: values.script,
      port: port ?? 0,
      recordFile: values.record ?? null,
      ...(loopLimit !== undefined ? { loopLimit } : {}),
    });
  } catch (err) {
    if (err instanceof ConfigError && err.issues.length > 0) {
      for (const issue of err.issues) line(io.err)(`model-server: ${formatIssue(issue)}`);
      return 2;
    }
    if (err instanceof AgentGuardError) {
      line(io.err)(`model-server: ${err.message}`);
      return 2;
    }
    throw err;
  }
  line(io.out)(running.url);
  line(io.err)(
    `model-server: replaying ${values.script} at ${running.url} (OpenAI base URL ${running.url}/v1)`,
  );
  await stop;
  const records = await running.server.stop();
  const s = summarizeRecords(records);
  line(io.err)(
    `model-server: stopped after ${s.requests} requests, ${s.turns} scripted turns, ~${s.input_tokens} input and ~${s.output_tokens} output tokens${s.problem ? `; ${s.problem}` : ''}`,
  );
  if (running.server.recordWriteError) line(io.err)(`model-server: ${running.server.recordWriteError}`);
  return 0;
}

/** undefined when absent, null (after printing why) when invalid. */
function wholeNumber(
  v: string | undefined,
  flag: string,
  min: number,
  max: number,
  io: CliIO,
): number | undefined | null {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    line(io.err)(
      `model-server: ${flag} must be a whole number from ${min} to ${max}, not '${v}'. Fix: e.g. ${flag} ${Math.max(min, 3)}.`,
    );
    return null;
  }
  return n;
}
