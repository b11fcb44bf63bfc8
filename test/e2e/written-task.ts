import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { execCli } from './exec-cli.js';

/** Writes a file below `dir` by its relative path, making its folders: a task's repo, agent and config. */
export function fileWriter(dir: string): (rel: string, text: string) => void {
  return (rel, text) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
}

/** A shell agent that writes each file (`>`), or appends to it (`>>`), under the workspace. */
export function writingAgent(files: Record<string, string>, how: '>' | '>>'): string {
  const steps = Object.entries(files).map(
    ([rel, text]) => `mkdir -p "$(dirname ${rel})" && cat ${how} ${rel} <<'EOF'\n${text}\nEOF`,
  );
  return `${steps.join('\n')}\n`;
}

export type RunReport = {
  result: string;
  alerts: { rule: string; message: string }[];
  checks: { id: string; passed: boolean; message: string }[];
};

/** `run config.yaml` in `dir` under bwrap with the tracer: its JSON report (the stderr when there is none). */
export async function runReport(dir: string, tracer: string): Promise<RunReport> {
  const r = await execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', tracer, '--json'], {
    cwd: dir,
  });
  expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
  return JSON.parse(r.stdout) as RunReport;
}
