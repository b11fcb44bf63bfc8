import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECCOMP_FACT } from '../../src/evidence/seccomp-policy.js';
import { containerAvailability, TEST_IMAGE } from '../../src/sandbox/container.js';
import { RUN_UID_COUNT, RUN_UID_FIRST } from '../../src/sandbox/run-user.js';
import { execCli, tempDir } from './exec-cli.js';
import { makeTestImage } from './test-image.js';

async function skipReason(): Promise<string | false> {
  if (process.getuid?.() !== 0) return 'they need root (rootful podman, a run user of its own)';
  const podman = await containerAvailability('podman');
  return podman.ok ? false : `podman is not usable: ${podman.reason} (fix: ${podman.fix})`;
}
const skip = await skipReason();
if (skip) console.warn(`container least-privilege e2e tests skipped: ${skip}`);

const work = tempDir('ag-ctr-leastpriv-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(skip)('a run in the container sandbox: the agent and the tests run as the run user', () => {
  beforeAll(makeTestImage, 200_000);

  it('not root, no capability, no root-only file, no host socket; the tests as the same user; PASS', async () => {
    const dir = path.join(work, 'task');
    mkdirSync(path.join(dir, 'repo'), { recursive: true });
    writeFileSync(path.join(dir, 'repo/README.md'), 'task\n');
    // A root-only file in the config's folder, which the container is shown, on no mask list.
    const secret = path.join(dir, 'root-only.txt');
    writeFileSync(secret, 'root-only-content\n');
    chmodSync(secret, 0o600);
    // An earlier run in the same output folder, with its canaries.
    const other = path.join(dir, '.agentguard/runs/20200101-000000-deadbeef/evidence');
    mkdirSync(other, { recursive: true });
    writeFileSync(path.join(other, 'canaries.json'), '{"canaries":["OTHER-RUN-CANARY"]}\n');
    writeFileSync(
      path.join(dir, 'agent.sh'),
      [
        'id -u > uid.txt',
        'grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status > status.txt',
        `cat ${secret} > secret.txt 2>/dev/null; echo $? > secret.rc`,
        // Another run's evidence and sockets: under the output folder, shown empty and root's alone.
        `ls -A ${dir}/.agentguard/runs > runs.txt 2>&1`,
        'ls /run /var/run > run.txt 2>&1',
        // Every process the agent can see is its own: nothing of the harness or the engine is inside.
        'for p in /proc/[0-9]*; do stat -c %u $p; done | sort -u > owners.txt',
        'echo changed >> README.md',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'config.yaml'),
      [
        'name: container-least-privilege',
        'task: {prompt: do the task}',
        'repo: repo',
        // The tests pass only as a run user: uid 0 (the image's default) fails them.
        `test_command: [sh, -c, 'id -u > test-uid.txt; test "$(id -u)" -ge ${RUN_UID_FIRST}']`,
        `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
        `container: {image: ${TEST_IMAGE}, engine: podman, memory: 256m, cpus: 1}`,
      ].join('\n'),
    );
    // strace by name: the host's tracers cannot see into the container, so the run is untraced and says so.
    const r = await execCli(
      ['run', 'config.yaml', '--sandbox', 'container', '--tracer', 'strace', '--json'],
      {
        cwd: dir,
      },
    );
    expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
    const report = JSON.parse(r.stdout);
    const out = (name: string) => readFileSync(path.join(report.run_dir, 'repo', name), 'utf8').trim();
    const uid = Number(out('uid.txt'));
    expect(uid).toBeGreaterThanOrEqual(RUN_UID_FIRST);
    expect(uid).toBeLessThan(RUN_UID_FIRST + RUN_UID_COUNT);
    expect(Number(readFileSync(path.join(report.run_dir, 'grading/test-uid.txt'), 'utf8'))).toBe(uid);
    expect(out('status.txt')).toMatch(/CapEff:\s+0+\nCapBnd:\s+0+\nNoNewPrivs:\s+1\nSeccomp:\s+2/);
    expect(out('secret.txt')).toBe('');
    expect(out('secret.rc')).not.toBe('0');
    // Only the way to its own folders: the other run is not there.
    expect(out('runs.txt')).toBe(report.run_id);
    expect(out('run.txt')).not.toMatch(/docker\.sock|podman|agentguard|containerd/);
    expect(out('owners.txt')).toBe(String(uid));
    expect(report.result, JSON.stringify(report.failed_checks)).toBe('PASS');
    expect(report.diff.changed_files).toBeGreaterThanOrEqual(1);
    const facts = report.observation.sandbox.facts;
    expect(facts.run_user).toBe(`${uid}:${uid}`);
    expect(facts.seccomp).toContain(SECCOMP_FACT);
    expect(facts.capabilities).toMatch(/none/);
    expect(report.observation.tracer.kind).toBe('off');
    expect(report.observation.fallbacks).toContainEqual({
      component: 'tracer',
      wanted: 'strace',
      used: 'off',
      reason: expect.stringMatching(/outside the process tree strace follows/),
    });
    expect(report.checks.find((c: { id: string }) => c.id === 'observation-complete').message).toBe(
      'not traced (the tracer is off)',
    );
    // The lease of the run's uid is given back.
    expect(existsSync(`/run/agentguard/run-users/${uid}`)).toBe(false);
    expect(
      spawnSync('podman', [
        'ps',
        '-a',
        '--filter',
        `name=agentguard-${report.run_id}`,
        '-q',
      ]).stdout.toString(),
    ).toBe('');
  }, 240_000);
});
