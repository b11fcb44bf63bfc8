import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/reports/types.js';
import { execCli, tempDir } from './exec-cli.js';

/**
 * Issue 33: a script whose `#!` line names a downloaded file runs that file, though no exec names
 * it (the kernel starts the interpreter itself). The collector records the program the kernel ran;
 * the alert names the script, the interpreter and its writer. The honest twin runs scripts through
 * system interpreters, links to them (sh -> dash) and an interpreter the run copied without a
 * download, and stays quiet. strace and bpftrace do not see the interpreter (docs/coverage.md).
 */
const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = ['bwrap', 'python3'].filter((t) => !has(t));
const skip = !isRoot ? 'they need root' : missing.length > 0 ? `they need ${missing.join(', ')}` : null;
if (skip) console.warn(`downloaded-interpreter e2e tests skipped: ${skip} (CI runs them as root)`);

const work = tempDir('ag-interp-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HOSTILE = [
  'mkdir -p dl',
  // A download attempt, then the interpreter written by the process that made it.
  `python3 -c "
import os, urllib.request
try: urllib.request.urlopen('http://api.allowed.test/sh', timeout=3)
except Exception: pass
open('dl/interp', 'wb').write(open('/bin/sh', 'rb').read()); os.chmod('dl/interp', 0o755)"`,
  'printf "#!%s\\necho ran\\n" "$PWD/dl/interp" > job.sh && chmod +x job.sh && ./job.sh',
];

const HONEST = [
  'printf "#!/bin/sh\\necho ok\\n" > a.sh && chmod +x a.sh && ./a.sh',
  'printf "#!/usr/bin/env python3\\nprint(1)\\n" > b.py && chmod +x b.py && ./b.py',
  'cp /bin/sh ./mysh && printf "#!%s\\necho ok\\n" "$PWD/mysh" > c.sh && chmod +x c.sh && ./c.sh',
];

function task(name: string, steps: string[]): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'task\n');
  writeFileSync(path.join(dir, 'agent.sh'), `set -e\n${steps.join('\n')}\n`);
  writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      `name: ${name}`,
      'task: {prompt: do the task}',
      'repo: repo',
      "test_command: [sh, -c, 'true']",
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
      'network:',
      '  mode: allowlist',
      '  allow: [api.allowed.test]',
      "  hosts: {api.allowed.test: '127.0.0.1:9'}",
    ].join('\n'),
  );
  return dir;
}

async function run(dir: string): Promise<RunReport> {
  const r = await execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', 'ebpf', '--json'], {
    cwd: dir,
  });
  expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
  const report = JSON.parse(r.stdout) as RunReport;
  expect(report.observation.tracer.kind).toBe('ebpf');
  expect(report.checks.find((c) => c.id === 'agent-exit')?.passed).toBe(true);
  return report;
}

describe.skipIf(skip !== null)('a script run by a downloaded interpreter', () => {
  it('is exec-downloaded-interpreter under ebpf, naming both files; the honest twin is quiet', async () => {
    const hostile = await run(task('hostile', HOSTILE));
    const alert = hostile.alerts.find((a) => a.rule === 'exec-downloaded-interpreter');
    expect(alert?.path).toBe(`${hostile.run_dir}/repo/job.sh`);
    expect(alert?.message).toContain(
      `the interpreter ${hostile.run_dir}/repo/dl/interp, downloaded by python3`,
    );
    expect(alert?.process.chain.length).toBeGreaterThan(0);

    const honest = await run(task('honest', HONEST));
    expect(honest.alerts.map((a) => a.rule)).toEqual([]);
    expect(honest.result).toBe('PASS');
  }, 240_000);
});
