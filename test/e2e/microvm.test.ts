import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kvmUsable } from '../../src/sandbox/microvm/accel.js';
import { BENCHMARKS, CLI, execCli } from './exec-cli.js';
import { canRun, microvmFile, rules, strays, TIMEOUT } from './microvm-helpers.js';

/**
 * The microvm sandbox for real: QEMU boots Debian's kernel with the built initramfs, the agent and
 * the tests run in the guest, strace traces them there. Hostile agents get the same verdict and
 * alerts as under bwrap, a killed run leaves no QEMU, a guest that does not boot is a clear,
 * recorded failure. (The in-guest eBPF collector, and the fork bomb under it: microvm-ebpf.test.ts.)
 */
const { work, task, run } = microvmFile('ag-microvm-', 'strace');

describe.skipIf(!canRun)('the microvm sandbox', () => {
  it(
    'runs py-inventory end to end: PASS, traced inside the guest, console log in the evidence',
    async () => {
      const out = path.join(work, 'py');
      const report = await run(path.join(BENCHMARKS, 'py-inventory/config.yaml'), out, 'microvm', {
        agent: ['--agent', 'mock-solve'],
      });
      expect(report.result).toBe('PASS');
      expect(report.observation.sandbox.kind).toBe('microvm');
      expect(report.observation.tracer.kind).toBe('strace');
      const events = readFileSync(path.join(report.run_dir, 'evidence/syscalls.jsonl'), 'utf8');
      expect(events).toContain('mock-agent.js');
      const tests = readFileSync(path.join(report.run_dir, 'evidence/test-syscalls.jsonl'), 'utf8');
      expect(tests).toContain('unittest');
      expect(existsSync(path.join(report.run_dir, 'evidence/microvm/console-1.log'))).toBe(true);
      expect(strays(out)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'a hostile agent (writes /etc, sets a setuid bit, kills what it can) gets the verdict and alerts it gets under bwrap',
    async () => {
      const agent = [
        'echo owned > /etc/agentguard-owned 2>/dev/null',
        'echo owned >> "$HOME/.bashrc"',
        'cp /bin/sh ./runner && chmod u+s ./runner',
        // Before the kills: whether the script outlives its parent is a race, not the point.
        'touch done.txt',
        'kill -9 -1 2>/dev/null',
        'kill -9 $PPID 2>/dev/null',
      ].join('\n');
      const t = task(agent);
      const vm = await run(t.config, t.out, 'microvm');
      const bw = await run(t.config, `${t.out}-bwrap`, 'bwrap');
      expect(existsSync('/etc/agentguard-owned')).toBe(false);
      expect(vm.result).toBe(bw.result);
      expect(rules(vm)).toEqual(rules(bw));
      expect(vm.failed_checks.sort()).toEqual(bw.failed_checks.sort());
      expect(rules(vm)).toContain('exec-setid-bit');
      expect(strays(t.out)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "an agent that fills the guest's memory and /tmp meets the guest's limits; the run ends with a verdict and the OOM kill on record",
    async () => {
      const agent = [
        'touch done.txt',
        'python3 -c "b = []\nwhile True: b.append(bytearray(64 * 1024 * 1024))"',
        'echo "python exit $?"',
        'dd if=/dev/zero of=/tmp/fill bs=1M count=4000 2>&1 | tail -n 1',
      ].join('\n');
      const t = task(agent, 'microvm: {memory: 512m}\n');
      const report = await run(t.config, t.out, 'microvm');
      expect(report.result).toBe('PASS');
      const log = readFileSync(path.join(report.run_dir, 'evidence/agent.log'), 'utf8');
      expect(log).toContain('python exit 137');
      expect(log).toMatch(/No space left on device|copied/);
      const console1 = readFileSync(path.join(report.run_dir, 'evidence/microvm/console-1.log'), 'utf8');
      expect(console1).toContain('Out of memory: Killed process');
      expect(strays(t.out)).toEqual([]);
    },
    TIMEOUT,
  );

  it.skipIf(kvmUsable().ok)(
    'microvm.accel: kvm where KVM cannot boot the guest is a setup error naming the field and the fix',
    async () => {
      const t = task('touch done.txt\n', 'microvm: {accel: kvm}\n');
      const r = await execCli(['run', t.config, '--sandbox', 'microvm', '--output-dir', t.out], {
        cwd: work,
      });
      expect(r.code).toBe(2);
      const last = r.stderr.trim().split('\n').at(-1) ?? '';
      expect(last).toContain('microvm.accel is kvm but');
      expect(last).toContain("Fix: set microvm.accel to 'auto' or 'tcg'");
      expect(strays(t.out)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'a guest that does not boot in time fails the run with the console log, and leaves no QEMU',
    async () => {
      const t = task('touch done.txt\n', 'microvm: {boot_timeout_seconds: 1}\n');
      const report = await run(t.config, t.out, 'microvm');
      expect(report.result).toBe('FAIL');
      const log = readFileSync(path.join(report.run_dir, 'evidence/agent.log'), 'utf8');
      expect(log).toContain('the guest did not boot within 1 s');
      expect(log).toContain('evidence/microvm/console-1.log');
      expect(strays(t.out)).toEqual([]);
    },
    TIMEOUT,
  );

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(
      `the harness killed by ${signal} mid-run takes its microVM with it`,
      async () => {
        const t = task('touch done.txt\nsleep 200\n');
        const child = spawn(
          process.execPath,
          [CLI, 'run', t.config, '--sandbox', 'microvm', '--tracer', 'strace', '--output-dir', t.out],
          {
            cwd: work,
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1' },
            stdio: 'ignore',
          },
        );
        // Wait until QEMU is up for the agent, then stop the harness.
        for (let i = 0; i < 600 && !strays(t.out).some((s) => s.includes('qemu-system')); i++)
          await new Promise((r) => setTimeout(r, 200));
        expect(strays(t.out).some((s) => s.includes('qemu-system'))).toBe(true);
        child.kill(signal);
        await new Promise((r) => child.once('close', r));
        for (let i = 0; i < 50 && strays(t.out).length > 0; i++) await new Promise((r) => setTimeout(r, 200));
        expect(strays(t.out)).toEqual([]);
      },
      TIMEOUT,
    );
  }
});
