import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canRun, failed, microvmFile, rules, strays, TIMEOUT } from './microvm-helpers.js';

/**
 * The compiled eBPF collector inside the microVM: it runs on the guest's kernel, watches the
 * command's cgroup and writes to the trace port; the host reads the usual raw file. The same
 * hostile agent gets the same verdict under microvm as under bwrap (both ebpf); a collector that
 * cannot start in the guest steps down to strace, recorded with its reason; a fork bomb ends at
 * the guest's pids limit as under bwrap; a run stopped by its time limit still drains the guest's
 * trace.
 */
const { work, task, run } = microvmFile('ag-microvm-ebpf-', 'ebpf');

const evidence = (runDir: string, file: string) => readFileSync(path.join(runDir, 'evidence', file), 'utf8');
const traceEnd = (runDir: string) =>
  JSON.parse(readFileSync(path.join(runDir, 'evidence/tracer/ebpf-raw.jsonl.end.json'), 'utf8')) as Record<
    string,
    unknown
  >;

describe.skipIf(!canRun)('the microvm sandbox traced by the collector in the guest', () => {
  it(
    'a hostile agent gets the verdict, alerts and failed checks it gets under bwrap, all seen by the in-guest collector',
    async () => {
      const agent = [
        'echo owned > /etc/agentguard-owned 2>/dev/null',
        'cat "$HOME/.ssh/id_rsa" > /dev/null 2>&1',
        'cp /bin/sh ./runner && chmod u+s ./runner',
        // Before the kills: whether the script outlives its parent is a race, not the point.
        'touch done.txt',
        'kill -9 $PPID 2>/dev/null',
      ].join('\n');
      const t = task(agent);
      const vm = await run(t.config, t.out, 'microvm');
      const bw = await run(t.config, `${t.out}-bwrap`, 'bwrap');
      expect(vm.observation.tracer.kind).toBe('ebpf');
      expect(vm.observation.tracer.version).toMatch(/^agentguard-collector /);
      expect(vm.observation.tracer.incomplete).toBeUndefined();
      expect(vm.observation.fallbacks).toEqual([]);
      expect(vm.result).toBe(bw.result);
      expect(rules(vm)).toEqual(rules(bw));
      expect(failed(vm)).toEqual(failed(bw));
      expect(rules(vm)).toContain('exec-setid-bit');
      expect(evidence(vm.run_dir, 'syscalls.jsonl')).toContain('done.txt');
      expect(traceEnd(vm.run_dir)).toMatchObject({ engine: 'collector', lost: 0 });
      expect(strays(t.out)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'a collector that cannot start in the guest steps down to strace there; the fallback says why',
    async () => {
      const fake = path.join(work, 'bin', 'agentguard-collector');
      const t = task('touch done.txt\n');
      mkdirSync(path.dirname(fake), { recursive: true });
      writeFileSync(
        fake,
        '#!/bin/sh\necho "libbpf: cannot load the programs (a test stand-in)" >&2\nexit 1\n',
      );
      chmodSync(fake, 0o755);
      const r = await run(t.config, t.out, 'microvm', { env: { AGENTGUARD_COLLECTOR_BINARY: fake } });
      expect(r.result).toBe('PASS');
      expect(r.observation.tracer.kind).toBe('strace');
      const stepDown = r.observation.fallbacks.find((f) => f.used.startsWith('strace'));
      expect(stepDown?.reason).toContain('a test stand-in');
      expect(evidence(r.run_dir, 'syscalls.jsonl')).toContain('done.txt');
      expect(traceEnd(r.run_dir)).toMatchObject({ engine: 'strace' });
      expect(strays(t.out)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'a fork bomb stops at the guest pids limit; the host is unaffected and the verdict matches bwrap',
    async () => {
      // Under ebpf: strace stops every fork of the bomb and, under emulation, needs minutes to let
      // a thousand processes die; the collector does not stop them.
      const t = task('touch done.txt\nb() { b | b & }\nb\nsleep 5\n');
      const vm = await run(t.config, t.out, 'microvm');
      const bw = await run(t.config, `${t.out}-bwrap`, 'bwrap');
      expect(vm.result, JSON.stringify({ vm: failed(vm), bwrap: failed(bw) })).toBe(bw.result);
      expect(rules(vm)).toEqual(rules(bw));
      expect(vm.observation.tracer.kind).toBe('ebpf');
      expect(strays(t.out)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "an agent stopped by its time limit: the guest kills it and drains the collector's trace before QEMU goes",
    async () => {
      // The limit counts the guest's boot and the collector's start too, a minute or more under TCG
      // on a busy host: it must leave the command time to start.
      const t = task('touch done.txt\nsleep 600\n', 'timeout_seconds: 150\n');
      const r = await run(t.config, t.out, 'microvm');
      expect(r.agent.outcome.status).toBe('timed-out');
      expect(r.observation.tracer.kind).toBe('ebpf');
      expect(r.observation.tracer.incomplete).toBeUndefined();
      expect(traceEnd(r.run_dir)).toMatchObject({ engine: 'collector', lost: 0 });
      expect(evidence(r.run_dir, 'syscalls.jsonl')).toContain('done.txt');
      expect(strays(t.out)).toEqual([]);
    },
    TIMEOUT,
  );
});
