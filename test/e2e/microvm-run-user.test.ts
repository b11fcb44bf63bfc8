import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_UID_COUNT, RUN_UID_FIRST } from '../../src/sandbox/run-user.js';
import { canRun, type Report, run, strays, TIMEOUT, task, workDir } from './microvm-helpers.js';

/**
 * Inside the microVM the agent and the tests run as the run's own uid, as under bwrap: the inner
 * bwrap drops the command with setpriv while the harness's wrappers (the tracer, the proxy bridge)
 * stay root in the guest. The files it writes over 9p are the run user's on the host.
 */
const work = workDir('ag-microvm-user-');

describe.skipIf(!canRun)('the microvm sandbox runs the agent as the run user', () => {
  for (const tracer of ['strace', 'ebpf'] as const) {
    it(
      `under ${tracer} in the guest: not root, no capability, no root-only file, no harness process to kill; the keyring refused, recorded and alerted`,
      async () => {
        const agent = [
          'id -u > uid.txt',
          'grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status > status.txt',
          'cat "$0/root-only.txt" > secret.txt 2>/dev/null; echo $? > secret.rc',
          // The parent is the harness's proxy bridge or tracer, root in the guest.
          'kill -9 $PPID 2>/dev/null; echo $? > kill.rc',
          `python3 -c "import ctypes; l = ctypes.CDLL(None, use_errno=True); print(l.syscall(248, b'user', b'agentguard-covert', b'v', 1, -4), ctypes.get_errno())" > keyring.txt`,
          'touch done.txt',
        ].join('\n');
        const t = task(work, agent);
        // The tests say who they ran as.
        const config = readFileSync(t.config, 'utf8');
        writeFileSync(
          t.config,
          config.replace("'test -f done.txt'", "'id -u > test-uid.txt; test -f done.txt'"),
        );
        // A root-only file in the config's folder, which the guest is shown, on no mask list.
        const secret = path.join(path.dirname(t.config), 'root-only.txt');
        writeFileSync(secret, 'root-only-content\n');
        chmodSync(secret, 0o600);
        const report: Report = await run(work, t.config, t.out, 'microvm', { tracer });
        const out = (name: string) => readFileSync(path.join(report.run_dir, 'repo', name), 'utf8').trim();
        const uid = Number(out('uid.txt'));
        expect(uid).toBeGreaterThanOrEqual(RUN_UID_FIRST);
        expect(uid).toBeLessThan(RUN_UID_FIRST + RUN_UID_COUNT);
        expect(Number(readFileSync(path.join(report.run_dir, 'grading/test-uid.txt'), 'utf8'))).toBe(uid);
        expect(out('status.txt')).toMatch(/CapEff:\s+0+\nCapBnd:\s+0+\nNoNewPrivs:\s+1\nSeccomp:\s+2/);
        expect(out('secret.txt')).toBe('');
        expect(out('secret.rc')).not.toBe('0');
        expect(out('kill.rc')).not.toBe('0');
        // Under either tracer the kernel fails it with ENOSYS (strace sees the call before seccomp).
        expect(out('keyring.txt')).toBe('-1 38');
        expect(report.observation.tracer.kind).toBe(tracer);
        expect(report.observation.sandbox.facts.run_user).toBe(`${uid}:${uid}`);
        const events = readFileSync(path.join(report.run_dir, 'evidence/syscalls.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { kind: string; syscall: string; result?: number });
        expect(
          events.some((e) => e.kind === 'privilege' && e.syscall === 'add_key' && (e.result ?? 0) < 0),
        ).toBe(true);
        expect(report.alerts.map((a) => a.rule)).toContain('exec-keyring');
        expect(report.failed_checks).not.toContain('tests-pass');
        expect(existsSync(`/run/agentguard/run-users/${uid}`)).toBe(false);
        expect(strays(t.out)).toEqual([]);
      },
      TIMEOUT,
    );
  }
});
