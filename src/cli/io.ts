import path from 'node:path';
import type { RunContext } from '../pipeline/context.js';

export type CliIO = {
  out: (text: string) => void;
  err: (text: string) => void;
};

export const processIO: CliIO = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
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
    log: opts.quiet ? () => {} : (line) => io.err(line),
    history: true,
  };
}
