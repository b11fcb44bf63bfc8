#!/usr/bin/env node
// Standalone entry: node dist/agents/model-server/main.js --script FILE [--port N] [--record FILE]
import { runModelServerCli } from './cli.js';

const stop = new Promise<void>((resolve) => {
  process.once('SIGINT', () => resolve());
  process.once('SIGTERM', () => resolve());
});
const code = await runModelServerCli(
  process.argv.slice(2),
  { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
  stop,
);
process.exitCode = code;
