/**
 * A scripted stand-in for a coding agent, run by the harness as a real subprocess with the prepared
 * workspace as its working directory:
 *
 *   node dist/agents/mock-agent.js --behaviour <b> [--solution <dir>] [--test-paths '<json globs>']
 *
 * It prints one line saying what it did and exits 0; bad arguments print one line to stderr and
 * exit 2. Node built-ins and files in this folder only, so it runs without the rest of agentguard.
 */
import { parseMockArgs, runBehaviour } from './mock-behaviours.js';

const parsed = parseMockArgs(process.argv.slice(2), process.cwd());
const result = parsed.ok ? runBehaviour(process.cwd(), parsed.options) : parsed;
if (result.ok) {
  process.stdout.write(`${result.summary}\n`);
} else {
  process.stderr.write(`mock-agent: ${result.error}\n`);
  process.exitCode = 2;
}
