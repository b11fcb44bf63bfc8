import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, CLI, execCli, tempDir } from './exec-cli.js';

/**
 * One run, every time: whatever fails or whoever interrupts, the CLI exits with the right code,
 * the run folder is either absent (setup failed) or analysable (interrupted), and nothing the run
 * started — processes, cgroups, mounts, sockets — is left on the host.
 */
const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canRun = isRoot && has('bpftrace') && has('strace') && has('bwrap');
if (!canRun) console.warn('lifecycle e2e tests skipped: they need root, bwrap, bpftrace and strace');

const work = tempDir('ag-lifecycle-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const TIMEOUT = 240_000;

let n = 0;
/** A tiny task in its own folder with its own output dir. */
function task(extra: string, opts: { agent?: string; tests?: string } = {}): { config: string; out: string } {
  const dir = path.join(work, `t${n++}`);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'create done.txt\n');
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    `name: lifecycle
task: {prompt: create done.txt}
repo: repo
test_command: [sh, -c, ${JSON.stringify(opts.tests ?? 'test -f done.txt')}]
agent_command: [sh, -c, ${JSON.stringify(opts.agent ?? 'touch done.txt')}]
${extra}`,
  );
  return { config, out: path.join(dir, 'out') };
}

const runsIn = (out: string) => {
  const dir = path.join(out, 'runs');
  return existsSync(dir) ? readdirSync(dir).map((id) => path.join(dir, id)) : [];
};

type Spawned = {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
};

/** The built CLI as a child we can signal. */
function startCli(args: string[], env: Record<string, string> = {}): Spawned {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c) => {
    stdout += c;
  });
  child.stderr?.on('data', (c) => {
    stderr += c;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

/**
 * What a run under `dir` may have left: processes whose command line names it (bpftrace's script,
 * strace's log, bwrap's binds, the agent under the run's repo), cgroups named after its runs,
 * mounts and Unix sockets under it. Empty means clean.
 */
function leftovers(dir: string, runIds: string[] = []): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    if (Number(pid) === process.pid) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (cmdline.includes(dir) && !cmdline.includes('vitest')) found.push(`process ${pid}: ${cmdline}`);
  }
  for (const parent of ['/sys/fs/cgroup/unified/agentguard', '/sys/fs/cgroup/pids/agentguard']) {
    if (!existsSync(parent)) continue;
    for (const name of readdirSync(parent)) {
      if (runIds.some((id) => name === id || name.startsWith(`${id}-`)))
        found.push(`cgroup ${parent}/${name}`);
    }
  }
  for (const line of readFileSync('/proc/mounts', 'utf8').split('\n'))
    if (line.includes(dir)) found.push(`mount ${line}`);
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n'))
    if (line.includes(dir)) found.push(`socket ${line}`);
  return found;
}

/** Leftovers may take a moment to vanish (a killed bpftrace detaching its probes). */
async function expectClean(dir: string, runIds: string[] = []): Promise<void> {
  for (let i = 0; i < 100 && leftovers(dir, runIds).length > 0; i++)
    await new Promise((r) => setTimeout(r, 200));
  expect(leftovers(dir, runIds)).toEqual([]);
}

async function expectAnalysable(runDir: string): Promise<Record<string, unknown>> {
  const again = await execCli(['analyze', runDir, '--json'], { cwd: work });
  expect(again.stderr).toBe('');
  expect(again.code).toBe(1);
  const report = JSON.parse(again.stdout);
  expect(report.result).toBe('ERROR');
  return report;
}

describe.skipIf(!canRun)('a failed setup step leaves nothing behind', () => {
  const steps = ['history', 'prepare', 'model-server', 'proxy', 'dns', 'sandbox'];
  for (const step of steps) {
    it(
      `failure at ${step}: exit 2, one sentence, no run folder, nothing running`,
      async () => {
        const { config, out } = task('');
        const r = await execCli(['run', config, '--output-dir', out], {
          cwd: work,
          env: { AGENTGUARD_TEST_FAULT: `fail:${step}` },
        });
        expect(r.code).toBe(2);
        expect(r.stderr.trim().split('\n').at(-1)).toBe(
          `agentguard: injected failure at step '${step}' (AGENTGUARD_TEST_FAULT)`,
        );
        expect(runsIn(out)).toEqual([]);
        await expectClean(path.dirname(config));
      },
      TIMEOUT,
    );
  }

  it(
    'an explicitly requested tracer that fails to start is a SetupError after everything is released',
    async () => {
      const { config, out } = task('');
      const r = await execCli(['run', config, '--output-dir', out, '--tracer', 'ebpf'], {
        cwd: work,
        env: { AGENTGUARD_TEST_FAULT: 'fail:tracer' },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("tracer 'ebpf' was requested but ebpf did not start: injected failure");
      expect(runsIn(out)).toEqual([]);
      await expectClean(path.dirname(config));
    },
    TIMEOUT,
  );

  it(
    'under tracer auto, a tracer that fails to start falls back, warns, and records why',
    async () => {
      const { config, out } = task('');
      const r = await execCli(['run', config, '--output-dir', out], {
        cwd: work,
        env: { AGENTGUARD_TEST_FAULT: 'fail:tracer' },
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        'warning: tracer strace instead of ebpf: ebpf did not start: injected failure',
      );
      const [runDir] = runsIn(out);
      const observation = JSON.parse(
        readFileSync(path.join(runDir as string, 'evidence/observation.json'), 'utf8'),
      );
      expect(observation.tracer.kind).toBe('off');
      expect(observation.fallbacks.map((f: { used: string }) => f.used)).toEqual(['strace', 'off']);
      await expectClean(path.dirname(config));
    },
    TIMEOUT,
  );
});

describe.skipIf(!canRun)('a signal in any phase: exit 128+N, an analysable ERROR run, nothing left', () => {
  const cases: { signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP'; phase: string; tracer: string }[] = [
    { signal: 'SIGINT', phase: 'prepare', tracer: 'strace' },
    { signal: 'SIGTERM', phase: 'prepare', tracer: 'strace' },
    { signal: 'SIGINT', phase: 'agent', tracer: 'ebpf' },
    { signal: 'SIGTERM', phase: 'agent', tracer: 'strace' },
    { signal: 'SIGINT', phase: 'tests', tracer: 'strace' },
    { signal: 'SIGTERM', phase: 'tests', tracer: 'ebpf' },
    { signal: 'SIGHUP', phase: 'agent', tracer: 'strace' },
  ];
  for (const { signal, phase, tracer } of cases) {
    it(
      `${signal} during ${phase} (tracer ${tracer})`,
      async () => {
        const { config, out } = task('', {
          agent: phase === 'agent' ? 'touch done.txt; sleep 60' : 'touch done.txt',
          tests: phase === 'tests' ? 'sleep 60' : 'test -f done.txt',
        });
        const started = performance.now();
        const r = await execCli(['run', config, '--output-dir', out, '--tracer', tracer], {
          cwd: work,
          env: { AGENTGUARD_TEST_FAULT: `signal:${signal}:${phase}` },
        });
        expect(r.code).toBe({ SIGINT: 130, SIGTERM: 143, SIGHUP: 129 }[signal]);
        expect(performance.now() - started).toBeLessThan(55_000);
        const [runDir] = runsIn(out);
        expect(runDir).toBeDefined();
        expect(existsSync(path.join(runDir as string, 'evidence/run.json'))).toBe(true);
        const report = (await expectAnalysable(runDir as string)) as {
          agent: { outcome: { status: string; reason?: string } };
        };
        if (phase !== 'tests') expect(report.agent.outcome.status).toBe('stopped');
        expect(r.stderr).toContain(`interrupted by ${signal}`);
        await expectClean(path.dirname(config), [path.basename(runDir as string)]);
      },
      TIMEOUT,
    );
  }
});

describe.skipIf(!canRun)('the harness killed with SIGKILL', () => {
  // bpftrace is the run's own helper process; the compiled collector is shared and outlives runs,
  // and only the run's registration (its connection) goes with the harness.
  for (const engine of ['bpftrace', 'collector'] as const) {
    it(
      `leaves ${engine === 'bpftrace' ? 'bpftrace, ' : ''}the sandbox and cgroups (ebpf engine ${engine}), and the next run sweeps them away`,
      async () => {
        // A sleep no other test runs, so that seeing it means this run's agent started.
        const marker = `sleep 120.${engine === 'bpftrace' ? 71 : 72}`;
        const { config, out } = task('', { agent: `touch done.txt; ${marker}` });
        const dir = path.dirname(config);
        // Its own owner notes: the sweep of another test's run must not clean up after this one first.
        const env = { AGENTGUARD_EBPF_ENGINE: engine, AGENTGUARD_OWNERS_DIR: path.join(dir, 'owners') };
        const cli = startCli(['run', config, '--output-dir', out, '--tracer', 'ebpf'], env);
        // Wait until the agent runs (its sleep shows up under the run's folder tree).
        for (let i = 0; i < 600; i++) {
          const agent = spawnSync('pgrep', ['-f', marker]).stdout.toString().trim();
          if (agent && (engine === 'collector' || leftovers(dir).some((l) => l.includes('bpftrace')))) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        cli.child.kill('SIGKILL');
        await cli.done;
        const [runDir] = runsIn(out);
        const runId = path.basename(runDir as string);
        const left = leftovers(dir, [runId]);
        expect(left.some((l) => l.includes('bpftrace'))).toBe(engine === 'bpftrace');
        expect(left.some((l) => l.startsWith('cgroup'))).toBe(true);

        // Any run sweeps first; this one then fails at once on purpose.
        const next = await execCli(['run', config, '--output-dir', out], {
          cwd: work,
          env: { AGENTGUARD_TEST_FAULT: 'fail:history', ...env },
        });
        expect(next.stderr).toMatch(/^agentguard: cleaned up after 1 earlier agentguard process\(es\)/);
        await expectClean(dir, [runId]);
      },
      TIMEOUT,
    );
  }
});

describe.skipIf(!canRun)('what the run records', () => {
  it(
    "under --guard enforce, the agent's outcome says the guard stopped it, when and after which rule",
    async () => {
      const { config, out } = task('', { agent: 'cat "$HOME/.ssh/id_rsa" > /dev/null; sleep 60' });
      const r = await execCli(['run', config, '--output-dir', out, '--guard', 'enforce', '--json'], {
        cwd: work,
      });
      const report = JSON.parse(r.stdout);
      expect(report.agent.outcome).toMatchObject({ status: 'stopped', by: 'guard' });
      expect(report.agent.outcome.reason).toMatch(/^stopped by the guard at \d+\.\d s after rule secrets-/);
      const check = report.checks.find((c: { id: string }) => c.id === 'agent-exit');
      expect(check.message).toMatch(/^the agent was stopped by the guard at/);
      expect(check.message).not.toContain('not started');
      // The stop is measured: from the alert to the agent's process having exited.
      expect(report.agent.guard).toMatchObject({
        outcome: 'stopped',
        rule: expect.stringMatching(/^secrets-/),
      });
      expect(report.agent.guard.stopped_after_ms).toBeLessThan(100);
      const md = readFileSync(path.join(runsIn(out)[0] as string, 'report.md'), 'utf8');
      expect(md).toMatch(
        /Guard \(enforce\): stopped the agent after critical alert secrets-[a-z-]+, gone \d+ ms after the alert/,
      );
    },
    TIMEOUT,
  );

  it(
    'under --guard enforce, an alert that comes after the agent exited is reported as too late, not as a stop',
    async () => {
      // The agent exits right after the read: the alert (tens of ms after the call) may find it gone.
      const { config, out } = task('', { agent: 'cat "$HOME/.ssh/id_rsa" > /dev/null; exit 0' });
      const r = await execCli(['run', config, '--output-dir', out, '--guard', 'enforce', '--json'], {
        cwd: work,
      });
      const report = JSON.parse(r.stdout);
      const md = readFileSync(path.join(runsIn(out)[0] as string, 'report.md'), 'utf8');
      if (report.agent.guard.outcome === 'already-exited') {
        expect(report.agent.outcome).toMatchObject({ status: 'completed' });
        expect(md).toMatch(
          /Guard \(enforce\): critical alert secrets-[a-z-]+ came too late, \d+ ms after the agent had exited/,
        );
        expect(r.stderr).not.toContain('stopping the agent');
      } else {
        // It was caught in time: then the stop is what the report says.
        expect(report.agent.guard.outcome).toBe('stopped');
        expect(report.agent.outcome).toMatchObject({ status: 'stopped', by: 'guard' });
      }
    },
    TIMEOUT,
  );

  it(
    'an agent that stops the sandbox bridge and exits gets its real exit, not the timeout',
    async () => {
      const { config, out } = task('timeout_seconds: 120\n', {
        agent: 'touch done.txt; kill -STOP $PPID; exit 7',
      });
      const started = performance.now();
      const r = await execCli(['run', config, '--output-dir', out, '--tracer', 'off', '--json'], {
        cwd: work,
      });
      const report = JSON.parse(r.stdout);
      expect(report.agent.outcome).toEqual({ status: 'failed', exit_code: 7, signal: null });
      expect(performance.now() - started).toBeLessThan(60_000);
      await expectClean(path.dirname(config));
    },
    TIMEOUT,
  );

  it(
    'run_timeout_seconds ends the run wherever it is and records it as ERROR with what was collected',
    async () => {
      const { config, out } = task('run_timeout_seconds: 3\n', { agent: 'touch done.txt; sleep 60' });
      const started = performance.now();
      const r = await execCli(['run', config, '--output-dir', out, '--tracer', 'off', '--json'], {
        cwd: work,
      });
      expect(r.code).toBe(1);
      expect(performance.now() - started).toBeLessThan(40_000);
      const report = JSON.parse(r.stdout);
      expect(report.result).toBe('ERROR');
      expect(report.agent.outcome).toMatchObject({ status: 'stopped', by: 'run-timeout' });
      await expectAnalysable(report.run_dir);
      await expectClean(path.dirname(config), [report.run_id]);
    },
    TIMEOUT,
  );

  it(
    'a timeout_seconds past what Node timers hold is refused by name; the longest allowed one does not end the agent at once',
    async () => {
      // Past 2^31 ms a Node timer fires at once; the config bounds timeouts to 7 days, and the
      // timers themselves are safe past that limit (src/exec/safe-timer.test.ts).
      const huge = task('timeout_seconds: 2200000\n', { agent: 'true' });
      const refused = await execCli(['run', huge.config, '--output-dir', huge.out, '--tracer', 'off'], {
        cwd: work,
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('timeout_seconds');
      expect(refused.stderr).not.toMatch(/internal error|\n\s+at /);
      const { config, out } = task('timeout_seconds: 604800\n', { agent: 'sleep 1; touch done.txt' });
      const r = await execCli(['run', config, '--output-dir', out, '--tracer', 'off', '--json'], {
        cwd: work,
      });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).agent.outcome).toEqual({ status: 'completed', exit_code: 0 });
    },
    TIMEOUT,
  );

  it(
    'a corrupt history.db stops the run before the agent, in one sentence, exit 2, with no run folder',
    async () => {
      const { config, out } = task('');
      mkdirSync(out, { recursive: true });
      writeFileSync(
        path.join(out, 'history.db'),
        Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(8192, 0x41)]),
      );
      const r = await execCli(['run', config, '--output-dir', out], { cwd: work });
      expect(r.code).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(path.join(out, 'history.db'));
      expect(lines[0]).toContain('move it aside');
      expect(runsIn(out)).toEqual([]);
    },
    TIMEOUT,
  );
});

describe.skipIf(!canRun)('two runs at once on a host without tracefs mounted', () => {
  it(
    'both mount it (or find it mounted) and both pass',
    async (ctx) => {
      const a = task('', { agent: 'touch done.txt' });
      const b = task('', { agent: 'touch done.txt' });
      // In a mount namespace of their own, so the tests running beside this one keep tracefs.
      const script = [
        'umount /sys/kernel/tracing || exit 77',
        ...[a, b].map(
          ({ config, out }, i) =>
            `"$0" "$1" run '${config}' --output-dir '${out}' --tracer ebpf --json > ${i}.out 2> ${i}.err & p${i}=$!`,
        ),
        'wait $p0; echo $? > 0.code; wait $p1; echo $? > 1.code',
      ].join('\n');
      const dir = mkdtempSync(path.join(work, 'race-'));
      const r = spawnSync(
        'unshare',
        ['--mount', '--propagation', 'private', 'sh', '-c', script, process.execPath, CLI],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, NO_COLOR: '1' },
          encoding: 'utf8',
        },
      );
      if (r.status === 77 || r.error) {
        console.warn(
          `skipped: cannot unmount tracefs in a mount namespace (${r.error?.message ?? r.stderr.trim()})`,
        );
        ctx.skip();
      }
      for (const i of [0, 1]) {
        const read = (ext: string) => readFileSync(path.join(dir, `${i}.${ext}`), 'utf8');
        expect(read('err')).toBe('');
        expect(read('code').trim()).toBe('0');
        expect(JSON.parse(read('out')).observation.tracer.kind).toBe('ebpf');
      }
    },
    TIMEOUT,
  );
});

describe.skipIf(!canRun)('the demo', () => {
  it(
    'records a run that fails to set up as a row of its table and goes on with the rest',
    async () => {
      const out = path.join(work, 'demo-out');
      const r = await execCli(['demo', '--output-dir', out], {
        cwd: work,
        env: { AGENTGUARD_TEST_FAULT: 'fail:sandbox' },
      });
      expect(r.code).toBe(1);
      const rows = r.stdout.split('\n').filter((l) => l.includes('ERROR'));
      // Every planned run got its row (each task × 5 mock agents), not just the first failure.
      const planned =
        5 * readdirSync(BENCHMARKS).filter((d) => existsSync(path.join(BENCHMARKS, d, 'config.yaml'))).length;
      expect(rows).toHaveLength(planned);
      expect(rows[0]).toContain("injected failure at step 'sandbox'");
      expect(r.stdout).toContain(`${planned} of ${planned} runs did not give the expected verdict.`);
      await expectClean(out);
    },
    TIMEOUT,
  );
});
