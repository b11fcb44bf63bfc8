import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/cli/main.js');
export const BENCHMARKS = path.join(ROOT, 'benchmarks');

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** Run the built CLI with a clean environment, as a user's shell would. */
export function execCli(
  args: string[],
  opts: { cwd: string; env?: Record<string, string> },
): Promise<CliResult> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run 'npm run build' first (npm test does)`);
  return spawnCollect(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: opts.cwd, NO_COLOR: '1', ...opts.env },
  });
}

/**
 * What a command said on stderr about itself. A run first cleans up after agentguard processes that
 * died without doing so, and says so in one line; tests that kill agentguard on purpose run at the
 * same time as the others, so that line may name their leftovers. lifecycle.test.ts checks it.
 */
export function ownStderr(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !l.startsWith('agentguard: cleaned up after '))
    .join('\n');
}

/** `program args` with no stdin, its exit code and everything it printed. */
export function spawnCollect(
  program: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A task folder whose agent is the shell script `script`, in `work/name`, with its config
 * (`extra` lines appended); runs started from it keep their output in `<task>/.agentguard`.
 */
export function scriptTask(work: string, name: string, script: string, extra: string[] = []): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'task\n');
  writeFileSync(path.join(dir, 'agent.sh'), script);
  writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      `name: ${name}`,
      'task: {prompt: do the task}',
      'repo: repo',
      "test_command: [sh, -c, 'true']",
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
      ...extra,
    ].join('\n'),
  );
  return dir;
}

export function tempDir(prefix = 'ag-e2e-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  // Readable by others, as a user's project folder is: a run whose agent (the run's own user) could
  // not read a folder the run shows it stops before the agent starts (exit 2).
  chmodSync(dir, 0o755);
  return dir;
}

/** `agentguard run config.yaml --sandbox bwrap --tracer strace --json` in `dir`: its result and the parsed report. */
export async function runBwrapStrace(dir: string, env?: Record<string, string>) {
  const r = await execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', 'strace', '--json'], {
    cwd: dir,
    ...(env ? { env } : {}),
  });
  expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
  return { ...r, report: JSON.parse(r.stdout) };
}

/** A clone as a user has it: `files` (relative path → text) committed in a new git repository at `dir`. */
export function committedRepo(dir: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  const git = (...args: string[]) =>
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'initial');
  return dir;
}
