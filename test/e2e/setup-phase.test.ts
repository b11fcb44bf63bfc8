import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBwrapStrace, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const ok = isRoot && has('bwrap') && has('strace');
if (!ok) console.warn('setup-phase e2e skipped: it needs root, bwrap and strace (CI has them)');

const work = tempDir('ag-setup-phase-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A task whose tests need a "dependency" that setup_command installs into the workspace (a vendored
 * file and a tracked file it rewrites), and an agent that makes the one real fix.
 */
function task(name: string, setup: string): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/lib.sh'), 'greet() { echo "helo $1"; }\n');
  writeFileSync(path.join(dir, 'repo/deps.lock'), 'dep 1.0\n');
  writeFileSync(
    path.join(dir, 'repo/test.sh'),
    '. ./vendor/dep.sh\n. ./lib.sh\ndep_ok && [ "$(greet you)" = "hello you" ]\n',
  );
  writeFileSync(path.join(dir, 'agent.sh'), "sed -i 's/helo/hello/' lib.sh\n");
  writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      `name: ${name}`,
      'task: {prompt: fix the greeting}',
      'repo: repo',
      'test_command: [sh, test.sh]',
      `setup_command: [sh, -c, ${JSON.stringify(setup)}]`,
      'setup_timeout_seconds: 20',
      'allowed_paths: [lib.sh]',
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
    ].join('\n'),
  );
  return dir;
}

const run = (dir: string) => runBwrapStrace(dir);

const INSTALL =
  'mkdir -p vendor && echo "dep_ok() { true; }" > vendor/dep.sh && echo "dep 1.0 resolved" > deps.lock';

describe.skipIf(!ok)('setup_command', () => {
  it("prepares the workspace before the agent: not the agent's diff, not traced, its output kept", async () => {
    const { code, report } = await run(task('installs', INSTALL));
    expect(report.result, JSON.stringify(report.checks.filter((c: { passed: boolean }) => !c.passed))).toBe(
      'PASS',
    );
    expect(code).toBe(0);
    // Only the agent's fix is its change: setup's new and rewritten files are the baseline.
    expect(report.diff.files.map((f: { path: string }) => f.path)).toEqual(['lib.sh']);
    const commands = readFileSync(path.join(report.run_dir, 'evidence/commands.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(commands.filter((c) => c.role === 'setup').map((c) => c.exit_code)).toEqual([0]);
    // Outside the monitoring window: none of setup's programs are in the agent's or the tests' events.
    const events = ['syscalls', 'test-syscalls'].flatMap((f) =>
      readFileSync(path.join(report.run_dir, `evidence/${f}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l)),
    );
    expect(events.some((e) => (e.argv ?? []).join(' ').includes('dep_ok() { true; }'))).toBe(false);
    expect(events.some((e) => e.kind === 'exec' && (e.argv ?? []).includes('lib.sh'))).toBe(true);
  }, 120_000);

  it('that fails ends the run as ERROR before the agent starts, with full reports and its output', async () => {
    const { code, report } = await run(task('fails', 'echo no cache for dep >&2; exit 3'));
    expect(report.result).toBe('ERROR');
    expect(code).toBe(1);
    expect(report.agent.outcome).toMatchObject({ status: 'stopped', by: 'setup-failed' });
    expect(report.agent.outcome.reason).toMatch(/setup_command failed \(exit 3; its output is command/);
    expect(report.tests.ran).toBe(false);
    for (const f of ['report.json', 'report.md', 'report.html', 'manifest.json'])
      expect(existsSync(path.join(report.run_dir, f)), f).toBe(true);
    const commands = readFileSync(path.join(report.run_dir, 'evidence/commands.jsonl'), 'utf8');
    expect(commands).toContain('no cache for dep');
    expect(commands).not.toContain('"role":"agent"');
  }, 120_000);

  it('that hangs is stopped at setup_timeout_seconds', async () => {
    const { report } = await run(task('hangs', 'sleep 60'));
    expect(report.result).toBe('ERROR');
    expect(report.agent.outcome.reason).toMatch(/timed out after setup_timeout_seconds \(20s\)/);
  }, 120_000);
});
