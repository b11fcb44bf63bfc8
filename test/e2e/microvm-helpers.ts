import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { microvmAvailability } from '../../src/sandbox/microvm/doctor.js';
import { execCli, tempDir } from './exec-cli.js';

/**
 * What the microvm e2e files share. CI installs QEMU and builds the image (scripts/install.sh
 * --microvm), so there these tests must run: a missing microvm fails them instead of skipping.
 */
const isRoot = process.getuid?.() === 0;
const availability = microvmAvailability();
export const canRun = isRoot && availability.ok;
if (!canRun) {
  const why = isRoot
    ? availability.ok
      ? ''
      : `${availability.reason} (fix: ${availability.fix})`
    : 'needs root';
  if (process.env.CI) throw new Error(`microvm e2e cannot run in CI: ${why}`);
  console.warn(`microvm e2e skipped: ${why}`);
}

// Under TCG (no usable KVM) a boot takes 5–15 s on a busy two-core machine, twice per run.
export const TIMEOUT = 400_000;

export type Report = {
  result: string;
  run_dir: string;
  run_id: string;
  alerts: { rule: string }[];
  failed_checks: string[];
  agent: { outcome: { status: string; exit_code?: number | null } };
  observation: {
    sandbox: { kind: string; facts: Record<string, string> };
    tracer: { kind: string; version?: string; incomplete?: string; warnings?: string[]; lost_events: number };
    fallbacks: { wanted: string; used: string; reason: string }[];
  };
};

/** A temporary folder for one test file, removed after it. */
export function workDir(prefix: string): string {
  const work = tempDir(prefix);
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  return work;
}

let n = 0;
/** A one-file task whose agent is the shell script `agent`; the tests want done.txt. */
export function task(work: string, agent: string, extra = ''): { config: string; out: string } {
  const dir = path.join(work, `task${n++}`);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'create done.txt\n');
  writeFileSync(path.join(dir, 'agent.sh'), agent);
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    `name: microvm-hostile
task: {prompt: create done.txt}
repo: repo
test_command: [sh, -c, 'test -f done.txt']
agent_command: [sh, -c, '. "$0/agent.sh"', '{config_dir}']
${extra.includes('timeout_seconds') ? '' : 'timeout_seconds: 240\n'}${extra}`,
  );
  return { config, out: path.join(dir, 'out') };
}

/**
 * One test file's folder and its two helpers, bound to it and to the file's tracer: `task(agent)`
 * and `run(config, out, sandbox)`.
 */
export function microvmFile(prefix: string, tracer: 'strace' | 'ebpf') {
  const work = workDir(prefix);
  return {
    work,
    task: (agent: string, extra = '') => task(work, agent, extra),
    run: (
      config: string,
      out: string,
      sandbox: string,
      opts: { agent?: string[]; env?: Record<string, string> } = {},
    ) => run(work, config, out, sandbox, { ...opts, tracer }),
  };
}

export async function run(
  work: string,
  config: string,
  out: string,
  sandbox: string,
  opts: { agent?: string[]; tracer: string; env?: Record<string, string> },
): Promise<Report> {
  const r = await execCli(
    [
      'run',
      config,
      ...(opts.agent ?? []),
      '--sandbox',
      sandbox,
      '--tracer',
      opts.tracer,
      '--output-dir',
      out,
      '--json',
    ],
    { cwd: work, ...(opts.env ? { env: opts.env } : {}) },
  );
  expect(r.stdout, r.stderr).not.toBe('');
  return JSON.parse(r.stdout) as Report;
}

export const failed = (r: Report) => [...r.failed_checks].sort();
export const rules = (r: Report) => [...new Set(r.alerts.map((a) => a.rule))].sort();

/** QEMU processes (or anything else) whose command line names `dir`: a microVM that outlived its run. */
export function strays(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(dir) && !cmdline.includes('vitest'))
        found.push(`${pid}: ${cmdline.slice(0, 200)}`);
    } catch {
      // gone
    }
  }
  return found;
}
