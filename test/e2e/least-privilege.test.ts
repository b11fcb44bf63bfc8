import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, ROOT, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canSandbox = isRoot && has('bwrap') && has('setpriv') && has('strace');
if (!canSandbox)
  console.warn('least-privilege e2e tests skipped: they need root, bwrap, setpriv and strace (CI has them)');
const collectorBuilt = existsSync(path.join(ROOT, 'collector/build/agentguard-collector'));
if (!collectorBuilt)
  console.warn('least-privilege e2e: the eBPF collector is not built; its runs are skipped');
const TRACERS = ['strace', ...(collectorBuilt ? ['ebpf'] : [])];

const RUN_UID_FIRST = 2 ** 31 - 2 ** 16;

const work = tempDir('ag-leastpriv-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A task folder with its config and agent script; its output goes to `<task>/.agentguard`. */
function task(name: string, script: string, extra: string[] = []): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'task\n');
  writeFileSync(path.join(dir, 'agent.sh'), script);
  writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      `name: ${name}`,
      'task: {prompt: do the task}',
      'repo: repo',
      "test_command: [sh, -c, 'id -u > test-uid.txt']",
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
      ...extra,
    ].join('\n'),
  );
  return dir;
}

type Alert = { rule: string; message: string };
type Event = { kind: string; syscall: string; path?: string; result?: number };

async function run(dir: string, tracer: string) {
  const r = await execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', tracer, '--json'], {
    cwd: dir,
  });
  expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
  const report = JSON.parse(r.stdout);
  const events = (file: string): Event[] =>
    readFileSync(path.join(report.run_dir, 'evidence', file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  const out = (name: string) => readFileSync(path.join(report.run_dir, 'repo', name), 'utf8').trim();
  return { ...r, report, events, out, alerts: report.alerts as Alert[] };
}

describe.skipIf(!canSandbox)('the agent runs as an unprivileged user of its own run', () => {
  for (const tracer of TRACERS) {
    it(`under ${tracer}: not root, no capabilities, no root-only file, no harness process to signal, trace or attach to`, async () => {
      const dir = path.join(work, `uid-${tracer}`);
      mkdirSync(dir, { recursive: true });
      // A root-only file in a folder the agent is shown (the config's), on no mask list.
      const secret = path.join(dir, 'root-only.txt');
      writeFileSync(secret, 'root-only-content\n');
      chmodSync(secret, 0o600);
      const script = [
        'id -u > uid.txt',
        'grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status > status.txt',
        `cat ${JSON.stringify(secret)} > secret.txt 2>/dev/null; echo $? > secret.rc`,
        // The parent is the harness's proxy bridge, a Node process: SIGUSR1 would open its inspector.
        'kill -USR1 $PPID 2>/dev/null; echo $? > usr1.rc',
        'kill -KILL 1 2>/dev/null; echo $? > kill1.rc',
        'dd if=/proc/$PPID/mem of=/dev/null bs=1 count=1 2>/dev/null; echo $? > mem.rc',
        'cat /proc/$PPID/environ > environ.txt 2>/dev/null; echo $? > environ.rc',
        `node -e "require('net').connect(9229,'127.0.0.1').on('connect',()=>{console.log('open');process.exit(0)}).on('error',()=>{console.log('refused');process.exit(0)})" > inspector.txt`,
        'git status --porcelain > git.txt 2>&1; echo $? > git.rc',
        'echo changed >> README.md',
      ].join('\n');
      task(`uid-${tracer}`, script);
      const r = await run(dir, tracer);
      const uid = Number(r.out('uid.txt'));
      expect(uid).toBeGreaterThanOrEqual(RUN_UID_FIRST);
      expect(uid).toBeLessThan(2 ** 31);
      expect(Number(r.out('test-uid.txt'))).toBe(uid);
      expect(r.out('status.txt')).toMatch(/CapEff:\s+0+\n/);
      expect(r.out('status.txt')).toMatch(/CapBnd:\s+0+\n/);
      expect(r.out('status.txt')).toMatch(/NoNewPrivs:\s+1/);
      expect(r.out('secret.txt')).toBe('');
      expect(r.out('secret.rc')).not.toBe('0');
      expect(r.out('usr1.rc')).not.toBe('0');
      expect(r.out('kill1.rc')).not.toBe('0');
      expect(r.out('mem.rc')).not.toBe('0');
      expect(r.out('environ.rc')).not.toBe('0');
      expect(r.out('environ.txt')).toBe('');
      expect(r.out('inspector.txt')).toBe('refused');
      // git works on the run user's own workspace (no "dubious ownership").
      expect(r.out('git.rc'), r.out('git.txt')).toBe('0');
      expect(r.report.diff.changed_files).toBeGreaterThanOrEqual(1);
      expect(r.report.observation.sandbox.facts.run_user).toBe(`${uid}:${uid}`);
      // Every attempt is evidence: the refused reads, and the memory read is an alert.
      const events = r.events('syscalls.jsonl');
      const refused = (p: (path: string) => boolean) =>
        events.some((e) => e.kind === 'open' && e.path !== undefined && p(e.path) && (e.result ?? 0) < 0);
      expect(refused((p) => p === secret)).toBe(true);
      expect(refused((p) => /^\/proc\/\d+\/mem$/.test(p))).toBe(true);
      expect(r.alerts.map((a) => a.rule)).toContain('secrets-process-memory-read');
      // The lease of the run's uid is given back.
      expect(existsSync(`/run/agentguard/run-users/${uid}`)).toBe(false);
    }, 180_000);
  }
});
