import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, tempDir } from './exec-cli.js';

// The bpftrace engine records the calls the seccomp filter refuses, as the collector and strace do.
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canRun = process.getuid?.() === 0 && has('bwrap') && has('bpftrace') && has('python3');
if (!canRun) console.warn('bpftrace refused-call e2e skipped: it needs root, bwrap, bpftrace and python3');

const work = tempDir('ag-bt-refused-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Event = { kind: string; syscall: string; flags?: string[]; result?: number };

describe.skipIf(!canRun)('bwrap under the bpftrace engine', () => {
  it('records the keyring and namespace calls the filter refused, and alerts', async () => {
    const dir = path.join(work, 'task');
    mkdirSync(path.join(dir, 'repo'), { recursive: true });
    writeFileSync(path.join(dir, 'repo/README.md'), 'task\n');
    writeFileSync(
      path.join(dir, 'agent.sh'),
      [
        `python3 -c "import ctypes; l = ctypes.CDLL(None, use_errno=True); print(l.syscall(248, b'user', b'agentguard-covert', b'v', 1, -4), ctypes.get_errno())" > keyring.txt`,
        'unshare -Ur true 2>/dev/null; echo $? > userns.rc',
        'echo changed >> README.md',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'config.yaml'),
      [
        'name: bpftrace-refused',
        'task: {prompt: do the task}',
        'repo: repo',
        "test_command: [sh, -c, 'true']",
        `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
      ].join('\n'),
    );
    const r = await execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', 'ebpf', '--json'], {
      cwd: dir,
      env: { AGENTGUARD_EBPF_ENGINE: 'bpftrace' },
    });
    expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
    const report = JSON.parse(r.stdout);
    expect(report.observation.tracer.kind).toBe('ebpf');
    expect(report.observation.tracer.version).toMatch(/bpftrace/);
    expect(readFileSync(path.join(report.run_dir, 'repo/keyring.txt'), 'utf8').trim()).toBe('-1 38');
    const events: Event[] = readFileSync(path.join(report.run_dir, 'evidence/syscalls.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const refused = events.filter((e) => e.kind === 'privilege' && e.result === -38);
    expect(refused.map((e) => e.syscall)).toContain('add_key');
    expect(refused.find((e) => e.syscall === 'unshare')?.flags).toEqual(['CLONE_NEW*']);
    const rules = (report.alerts as { rule: string }[]).map((a) => a.rule);
    expect(rules).toContain('exec-keyring');
    expect(rules).toContain('exec-namespace-change');
  }, 240_000);
});
