import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerAvailability, TEST_IMAGE } from '../../src/sandbox/container.js';
import { execCli, ROOT, tempDir } from './exec-cli.js';
import { makeTestImage } from './test-image.js';

// The container sandbox under the compiled collector: podman puts each command's container below the
// run's cgroup (--cgroup-parent), and the collector follows the run's cgroup tree into it.
async function skipReason(): Promise<string | false> {
  if (process.getuid?.() !== 0) return 'they need root (rootful podman, BPF programs)';
  if (!existsSync(path.join(ROOT, 'collector/build/agentguard-collector')))
    return 'the eBPF collector is not built (make -C collector)';
  if (spawnSync('sh', ['-c', 'command -v cc']).status !== 0) return 'no C compiler for the static probe';
  const podman = await containerAvailability('podman');
  return podman.ok ? false : `podman is not usable: ${podman.reason} (fix: ${podman.fix})`;
}
const skip = await skipReason();
if (skip) console.warn(`container traced e2e tests skipped: ${skip}`);

const work = tempDir('ag-ctr-traced-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Event = { kind: string; syscall: string; path?: string; argv?: string[]; result?: number };

describe.skipIf(skip)('a container run traced by the compiled collector', () => {
  beforeAll(makeTestImage, 200_000);

  it("records the agent's reads, execs, a canary read and refused calls inside the container, and alerts", async () => {
    const dir = path.join(work, 'task');
    mkdirSync(path.join(dir, 'repo'), { recursive: true });
    writeFileSync(path.join(dir, 'repo/README.md'), 'task\n');
    // The image is busybox alone: a static program makes the keyring call, refused by the seccomp policy.
    writeFileSync(
      path.join(dir, 'add-key.c'),
      '#include <errno.h>\n#include <stdio.h>\n#include <sys/syscall.h>\n#include <unistd.h>\n' +
        'int main(void) { long r = syscall(SYS_add_key, "user", "agentguard-covert", "v", 1, -4);' +
        ' printf("%ld %d\\n", r, errno); return 0; }\n',
    );
    execFileSync('cc', ['-static', '-O2', '-o', path.join(dir, 'add-key'), path.join(dir, 'add-key.c')]);
    // A vsock socket, which no network namespace confines: refused by the same policy.
    writeFileSync(
      path.join(dir, 'vsock.c'),
      '#include <errno.h>\n#include <stdio.h>\n#include <sys/socket.h>\n' +
        'int main(void) { int s = socket(40, SOCK_STREAM, 0); printf("%d %d\\n", s, errno); return 0; }\n',
    );
    execFileSync('cc', ['-static', '-O2', '-o', path.join(dir, 'vsock'), path.join(dir, 'vsock.c')]);
    writeFileSync(
      path.join(dir, 'agent.sh'),
      [
        'cat /etc/hostname > hostname.txt',
        'cat /etc/ctr-traced-probe > /dev/null 2>&1',
        'cat "$HOME/.aws/credentials" > /dev/null',
        `${path.join(dir, 'add-key')} > keyring.txt`,
        `${path.join(dir, 'vsock')} > vsock.txt`,
        'unshare -U true 2>/dev/null; echo $? > userns.rc',
        'echo changed >> README.md',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'config.yaml'),
      [
        'name: container-traced',
        'task: {prompt: do the task}',
        'repo: repo',
        "test_command: [sh, -c, 'cat README.md > /dev/null']",
        `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
        `container: {image: ${TEST_IMAGE}, engine: podman, memory: 256m, cpus: 1}`,
      ].join('\n'),
    );
    const r = await execCli(['run', 'config.yaml', '--sandbox', 'container', '--tracer', 'ebpf', '--json'], {
      cwd: dir,
      env: { AGENTGUARD_EBPF_ENGINE: 'collector' },
    });
    expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
    const report = JSON.parse(r.stdout);
    const out = (name: string) => readFileSync(path.join(report.run_dir, 'repo', name), 'utf8').trim();
    expect(report.observation.tracer.kind).toBe('ebpf');
    expect(report.observation.tracer.lost_events).toBe(0);
    expect(
      report.observation.fallbacks.filter((f: { component: string }) => f.component === 'tracer'),
    ).toEqual([]);
    expect(report.observation.sandbox.facts.cgroup_manager).toBe('cgroupfs');
    const events: Event[] = readFileSync(path.join(report.run_dir, 'evidence', 'syscalls.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    // Inside the container: busybox's applets by their argv, a read, the probed path, the canary.
    // Only the payload's tree is the agent's: podman, conmon and runc start it and are not in the evidence.
    expect(events.find((e) => e.kind === 'exec')?.argv).toEqual(['sh', path.join(dir, 'agent.sh')]);
    expect(events.some((e) => e.kind === 'exec' && e.argv?.join(' ') === 'cat /etc/hostname')).toBe(true);
    expect(events.some((e) => /conmon|runc|podman/.test(e.path ?? ''))).toBe(false);
    expect(events.some((e) => e.kind === 'open' && e.path === '/etc/hostname')).toBe(true);
    expect(events.some((e) => e.path === '/etc/ctr-traced-probe' && (e.result ?? 0) < 0)).toBe(true);
    expect(events.some((e) => e.kind === 'open' && e.path?.endsWith('/.aws/credentials'))).toBe(true);
    // The keyring call is refused (ENOSYS from the TRACE action with no tracer attached) and recorded.
    expect(out('keyring.txt')).toBe('-1 38');
    expect(out('userns.rc')).not.toBe('0');
    expect(events.some((e) => e.kind === 'privilege' && e.syscall === 'add_key' && (e.result ?? 0) < 0)).toBe(
      true,
    );
    const rules = (report.alerts as { rule: string }[]).map((a) => a.rule);
    expect(rules).toContain('secrets-canary-read');
    expect(rules).toContain('exec-keyring');
    expect(rules).toContain('exec-namespace-change');
    expect(out('vsock.txt')).toBe('-1 38');
    expect(events.some((e) => e.syscall === 'socket' && (e.result ?? 0) === -38)).toBe(true);
    expect(rules).toContain('net-unconfined-socket');
    // busybox drops to the ids it holds at each applet's start: recorded, and no alert (Alpine's case).
    expect(
      events.some((e) => e.kind === 'privilege' && /^set[ug]id$/.test(e.syscall) && e.result === 0),
    ).toBe(true);
    expect(rules).not.toContain('exec-setid-capset');
    // The harness's cgroups are gone: the run's, and the per-controller ones the engine made on a hybrid host.
    expect(
      spawnSync('sh', [
        '-c',
        `ls -d /sys/fs/cgroup/*/agentguard/${report.run_id}* 2>/dev/null`,
      ]).stdout.toString(),
    ).toBe('');
    expect(
      spawnSync('podman', [
        'ps',
        '-a',
        '--filter',
        `name=agentguard-${report.run_id}`,
        '-q',
      ]).stdout.toString(),
    ).toBe('');
  }, 300_000);

  it("says an allow list means no network in the container (no bridge out of the agent's reach), and holds it", async () => {
    const dir = path.join(work, 'allowlist');
    mkdirSync(path.join(dir, 'repo'), { recursive: true });
    writeFileSync(path.join(dir, 'repo/README.md'), 'task\n');
    writeFileSync(
      path.join(dir, 'agent.sh'),
      [
        'wget -q -T 3 -O - http://allowed.test/ > fetched.txt 2>&1; echo $? > net.rc',
        'echo changed >> README.md',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'config.yaml'),
      [
        'name: container-allowlist',
        'task: {prompt: do the task}',
        'repo: repo',
        "test_command: [sh, -c, 'true']",
        `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
        'network: {mode: allowlist, allow: [allowed.test], hosts: {allowed.test: "127.0.0.1:9"}}',
        `container: {image: ${TEST_IMAGE}, engine: podman, memory: 256m, cpus: 1}`,
      ].join('\n'),
    );
    const r = await execCli(['run', 'config.yaml', '--sandbox', 'container', '--tracer', 'off', '--json'], {
      cwd: dir,
    });
    expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
    const report = JSON.parse(r.stdout);
    expect(readFileSync(path.join(report.run_dir, 'repo', 'net.rc'), 'utf8').trim()).not.toBe('0');
    expect(report.observation.fallbacks).toContainEqual({
      component: 'network',
      wanted: 'allowlist (enforced)',
      used: 'none',
      reason: expect.stringMatching(
        /takes the network away and hosts no proxy bridge.*fix: use the bwrap sandbox/,
      ),
    });
  }, 300_000);
});
