import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
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
        // A value in the user keyring would outlive the run: refused, whichever tracer watches.
        `python3 -c "import ctypes; l = ctypes.CDLL(None, use_errno=True); print(l.syscall(248, b'user', b'agentguard-covert', b'v', 1, -4), ctypes.get_errno())" > keyring.txt`,
        'unshare -Ur true 2>/dev/null; echo $? > userns.rc',
        'echo changed >> README.md',
      ].join('\n');
      task(`uid-${tracer}`, script);
      const r = await run(dir, tracer);
      const uid = Number(r.out('uid.txt'));
      expect(uid).toBeGreaterThanOrEqual(RUN_UID_FIRST);
      expect(uid).toBeLessThan(2 ** 31);
      // The tests ran in the grading copy (grading: copy), where their output stays.
      expect(Number(readFileSync(path.join(r.report.run_dir, 'grading/test-uid.txt'), 'utf8'))).toBe(uid);
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
      // The harness's own drop to the run user (capset, setresuid) is neither lost nor the agent's.
      expect(r.report.observation.tracer.lost_events).toBe(0);
      const failed = r.report.checks
        .filter((c: { passed: boolean }) => !c.passed)
        .map((c: { id: string }) => c.id);
      expect(failed).not.toContain('observation-complete');
      expect(failed).not.toContain('tests-pass');
      // Every attempt is evidence: the refused reads, and the memory read is an alert.
      const events = r.events('syscalls.jsonl');
      const refused = (p: (path: string) => boolean) =>
        events.some((e) => e.kind === 'open' && e.path !== undefined && p(e.path) && (e.result ?? 0) < 0);
      expect(refused((p) => p === secret)).toBe(true);
      expect(refused((p) => /^\/proc\/\d+\/mem$/.test(p))).toBe(true);
      expect(r.alerts.map((a) => a.rule)).toContain('secrets-process-memory-read');
      // The keyring and a new user namespace are refused, recorded and alerted.
      expect(r.out('keyring.txt')).toBe('-1 38');
      expect(r.out('userns.rc')).not.toBe('0');
      expect(
        events.some((e) => e.kind === 'privilege' && e.syscall === 'add_key' && (e.result ?? 0) < 0),
      ).toBe(true);
      expect(r.alerts.map((a) => a.rule)).toContain('exec-keyring');
      expect(r.alerts.map((a) => a.rule)).toContain('exec-namespace-change');
      // The lease of the run's uid is given back.
      expect(existsSync(`/run/agentguard/run-users/${uid}`)).toBe(false);
    }, 180_000);
  }
});

describe.skipIf(!canSandbox)(
  'another run at the same time is out of reach by permissions, not only by masks',
  () => {
    it('a run cannot list, read or connect to anything of a concurrent run whose output folder it is shown', async () => {
      // B's config folder holds A's task folder, so A's output folder is inside what B is shown, and
      // no mask of B's covers it (B masks its own output folder and `.agentguard` beside its folders).
      const dirB = path.join(work, 'b');
      const dirA = path.join(dirB, 'a');
      mkdirSync(dirA, { recursive: true });
      const go = path.join(dirA, 'go');
      task('b/a', `while [ ! -e ${JSON.stringify(go)} ]; do sleep 0.1; done\n`);
      const outA = path.join(dirA, '.agentguard');
      const runA = execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', 'strace', '--json'], {
        cwd: dirA,
      });
      try {
        // A is running once its proxy socket exists.
        const started = Date.now();
        let runDirA = '';
        while (!runDirA && Date.now() - started < 60_000) {
          await new Promise((r) => setTimeout(r, 200));
          const runs = existsSync(path.join(outA, 'runs')) ? readdirSync(path.join(outA, 'runs')) : [];
          const found = runs.find((id) => existsSync(path.join(outA, 'runs', id, 'net/proxy.sock')));
          if (found) runDirA = path.join(outA, 'runs', found);
        }
        expect(runDirA).not.toBe('');
        const sock = path.join(runDirA, 'net/proxy.sock');
        const targets = {
          canaries: path.join(runDirA, 'evidence/canaries.json'),
          key: path.join(runDirA, 'home/.ssh/id_rsa'),
          config: path.join(runDirA, 'config.json'),
        };
        const script = [
          `ls ${JSON.stringify(path.join(outA, 'runs'))} > ls.txt 2>&1; echo $? > ls.rc`,
          ...Object.entries(targets).map(
            ([name, file]) => `cat ${JSON.stringify(file)} > ${name}.txt 2>/dev/null; echo $? > ${name}.rc`,
          ),
          `node -e "require('net').connect('${sock}').on('connect',()=>{console.log('open');process.exit(0)}).on('error',(e)=>{console.log(e.code);process.exit(0)})" > sock.txt 2>&1`,
        ].join('\n');
        task('b', script);
        for (const tracer of TRACERS) {
          const r = await run(dirB, tracer);
          expect(r.out('ls.rc')).not.toBe('0');
          for (const name of Object.keys(targets)) {
            expect(r.out(`${name}.txt`), name).toBe('');
            expect(r.out(`${name}.rc`), name).not.toBe('0');
          }
          expect(r.out('sock.txt')).toBe('EACCES');
          // Each attempt is in B's evidence, refused.
          const events = r.events('syscalls.jsonl');
          expect(
            events.some((e) => e.kind === 'open' && e.path === targets.canaries && (e.result ?? 0) < 0),
            `${tracer}: the refused read of A's canaries`,
          ).toBe(true);
          expect(
            events.some(
              (e) =>
                e.kind === 'connect' &&
                (e as { addr?: { path?: string } }).addr?.path === sock &&
                (e.result ?? 0) < 0,
            ),
            `${tracer}: the refused connect to A's proxy socket`,
          ).toBe(true);
        }
      } finally {
        writeFileSync(go, '');
        await runA;
      }
      expect(statSync(outA).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(outA, 'runs')).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(outA, 'history.db')).mode & 0o777).toBe(0o600);
    }, 300_000);
  },
);

describe.skipIf(!canSandbox)('the agent sees only the system folders and its run (default-deny view)', () => {
  for (const tracer of TRACERS) {
    it(`under ${tracer}: /var, /root, /home, /srv and /mnt are not shown, a world-readable file under /var included`, async () => {
      // World-readable, on no mask list: only its absence from the view keeps it from the agent.
      const planted = `/var/tmp/agentguard-e2e-probe-${process.pid}-${tracer}.txt`;
      writeFileSync(planted, 'host-var-content\n', { mode: 0o644 });
      const reads = [planted, '/var/log/apt/term.log', '/var/cache/debconf/passwords.dat', '/root/.bashrc'];
      const script = [
        ...['/var', '/root', '/home', '/srv', '/mnt', '/media'].map(
          (d) =>
            `ls -A ${d} > ls${d.replace('/', '-')}.txt 2>/dev/null; echo $? > ls${d.replace('/', '-')}.rc`,
        ),
        ...reads.map((f, i) => `cat ${f} > read-${i}.txt 2>/dev/null; echo $? > read-${i}.rc`),
        'ls -A / > top.txt',
        // The toolchain still works: the system folders and the agent's own HOME are there.
        'git --version > git.txt 2>&1 && python3 -c "print(1)" >> git.txt && echo ok > ~/mine && cat ~/mine >> git.txt',
        'echo changed >> README.md',
      ].join('\n');
      try {
        const dir = task(`deny-${tracer}`, script);
        const r = await run(dir, tracer);
        for (const d of ['var', 'root', 'srv', 'mnt', 'media']) {
          expect(r.out(`ls-${d}.rc`), d).not.toBe('0');
          expect(r.out(`ls-${d}.txt`), d).toBe('');
        }
        // /home holds at most the way to the run's own HOME (when the harness's HOME is under it).
        for (const name of r.out('ls-home.txt').split('\n').filter(Boolean))
          expect(r.report.observation.sandbox.facts.home_inside).toBe(`/home/${name}`);
        reads.forEach((f, i) => {
          expect(r.out(`read-${i}.txt`), f).toBe('');
          expect(r.out(`read-${i}.rc`), f).not.toBe('0');
        });
        const top = r.out('top.txt').split('\n');
        for (const gone of ['var', 'root', 'srv', 'mnt', 'media', 'boot', 'sys'])
          expect(top).not.toContain(gone);
        expect(r.out('git.txt')).toMatch(/^git version .*\n1\nok$/);
        expect(r.report.observation.sandbox.facts.shown).toMatch(/\/usr.*\/etc/);
        expect(r.report.observation.sandbox.facts.shown).toContain(dir);
        // The attempts are evidence: the read of the planted file is recorded, refused.
        expect(
          r
            .events('syscalls.jsonl')
            .some((e) => e.kind === 'open' && e.path === planted && (e.result ?? 0) < 0),
        ).toBe(true);
        const failed = r.report.checks
          .filter((c: { passed: boolean }) => !c.passed)
          .map((c: { id: string }) => c.id);
        expect(failed).not.toContain('tests-pass');
      } finally {
        rmSync(planted, { force: true });
      }
    }, 180_000);
  }
});
