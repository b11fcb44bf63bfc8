import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPORT_FILES, reportPath } from '../../src/reports/reporters.js';
import { CLI, execCli, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const observed = isRoot && has('bwrap') && (has('bpftrace') || has('strace'));
if (!observed) console.warn('ci e2e (observed tests) skipped: it needs root, bwrap and a tracer');

const work = tempDir('ag-ci-');
const home = path.join(work, 'home');
mkdirSync(home);
// One test makes a 100,000-file checkout: removing it takes a while on a busy host.
afterAll(() => rmSync(work, { recursive: true, force: true }), 600_000);

function sh(cwd: string, ...argv: string[]): string {
  const r = spawnSync(argv[0] as string, argv.slice(1), { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const gitIn = (cwd: string, ...args: string[]) =>
  sh(cwd, 'git', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args);

function write(dir: string, rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
}

/**
 * A project on `main` whose tests run an install script, and a branch `pr` made from it. The
 * poisoned PR edits a test, adds a file under a forbidden path and an `.env`, and makes the install
 * script read the SSH key; the clean twin makes an ordinary change to the code.
 */
function project(name: string, poisoned: boolean): string {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
  write(dir, 'src/greet.sh', 'greet() { echo "hello $1"; }\n');
  write(dir, 'scripts/postinstall.sh', 'echo installed > /dev/null\n');
  write(
    dir,
    'tests/run.sh',
    // The tests write a file: in the copy they run in, never in the checkout.
    'sh scripts/postinstall.sh\n. ./src/greet.sh\necho ran > test-stamp.txt\n[ "$(greet you)" = "hello you" ]\n',
  );
  write(dir, '.gitignore', 'build/\n');
  write(
    dir,
    '.agentguard.yaml',
    ['test_command: [sh, tests/run.sh]', 'test_paths: ["tests/**"]', 'forbidden_paths: ["deploy/**"]'].join(
      '\n',
    ),
  );
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-qm', 'base');
  gitIn(dir, 'checkout', '-qb', 'pr');
  if (poisoned) {
    appendFileSync(path.join(dir, 'tests/run.sh'), '# the PR touched the tests\n');
    write(dir, 'deploy/prod.conf', 'replicas: 3\n');
    write(dir, '.env', 'API_URL=https://example.test\n');
    appendFileSync(path.join(dir, 'scripts/postinstall.sh'), 'head -c 16 "$HOME/.ssh/id_rsa" > /dev/null\n');
  } else {
    write(dir, 'src/greet.sh', 'greet() { echo "hello $1"; }\n# greets by name\n');
  }
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-qm', 'pr');
  // Something the build left behind, ignored by .gitignore: never judged.
  write(dir, 'build/out.txt', 'x\n');
  return dir;
}

type Report = {
  result: string;
  run_dir: string;
  failed_checks: string[];
  alerts: { rule: string; phase?: string; path?: string }[];
  checks: { id: string; passed: boolean; message: string }[];
  commands: { role: string; argv: string[] }[];
  tests: { ran: boolean; passed: boolean };
  diff: { files: { path: string; status: string; old_path?: string; binary?: boolean }[] };
};

async function ci(dir: string, args: string[], env: Record<string, string> = {}) {
  // HOME is not the checkout, as on a CI runner (agentguard keeps host caches under HOME).
  const r = await execCli(['ci', ...args], { cwd: dir, env: { HOME: home, ...env } });
  let report: Report | null = null;
  if (args.includes('--json') && r.stdout.startsWith('{')) report = JSON.parse(r.stdout);
  return { ...r, report };
}

const status = (dir: string) => gitIn(dir, 'status', '--porcelain');

/**
 * Change the policy as its owners do: on main, merged into the PR. The PR's own copy never judges
 * it (ci-trust.test.ts), so a policy a test needs is committed on the base.
 */
function setPolicy(dir: string, edit: () => void): void {
  gitIn(dir, 'checkout', '-q', 'main');
  edit();
  gitIn(dir, 'commit', '-qam', 'policy');
  gitIn(dir, 'checkout', '-q', 'pr');
  gitIn(dir, 'merge', '-q', '--no-edit', 'main');
}

describe('agentguard ci over a pull request', () => {
  it.skipIf(!observed)(
    'FAILs the poisoned PR with exactly its findings, the install script caught during the tests',
    async () => {
      const dir = project('poisoned', true);
      const before = status(dir);
      const summary = path.join(work, 'poisoned-summary.md');
      const r = await ci(dir, ['--base', 'main', '--json', '--github-summary'], {
        GITHUB_STEP_SUMMARY: summary,
      });
      expect(r.code, r.stderr).toBe(1);
      const report = r.report as Report;
      expect(report.result).toBe('FAIL');
      expect([...report.failed_checks].sort()).toEqual(['forbidden-paths', 'secret-paths', 'test-tampering']);
      expect(report.tests.passed).toBe(true);
      const rules = [...new Set(report.alerts.map((a) => a.rule))];
      expect(rules, JSON.stringify(report.alerts)).toEqual(['secrets-canary-read']);
      expect(report.alerts.every((a) => a.phase === 'tests')).toBe(true);
      expect(report.alerts[0]?.path).toMatch(/\.ssh\/id_rsa$/);
      expect(report.diff.files.map((f) => f.path).sort()).toEqual([
        '.env',
        'deploy/prod.conf',
        'scripts/postinstall.sh',
        'tests/run.sh',
      ]);
      // Reports in .agentguard/ci/<id>/, and nothing in the checkout changed.
      expect(report.run_dir.startsWith(path.join(dir, '.agentguard', 'ci'))).toBe(true);
      for (const f of [...REPORT_FILES, 'evidence/commands.jsonl', 'evidence/timeline.jsonl'])
        expect(existsSync(path.join(report.run_dir, f)), f).toBe(true);
      expect(status(dir)).toBe(before);
      // The job summary and the annotations for findings that point at files.
      const md = readFileSync(summary, 'utf8');
      expect(md).toContain('FAIL');
      expect(md).toContain('test-tampering');
      expect(md).toContain('secrets-canary-read');
      expect(r.stderr).toContain('::error file=tests/run.sh');
      expect(r.stderr).toContain('::error file=deploy/prod.conf');
      // A history row marked as a CI run.
      const rows = await execCli(
        ['reports', 'list', '--json', '--output-dir', path.join(dir, '.agentguard')],
        {
          cwd: dir,
        },
      );
      expect(JSON.parse(rows.stdout)[0]).toMatchObject({ kind: 'ci', result: 'FAIL' });
    },
    120_000,
  );

  it.skipIf(!(isRoot && has('bwrap') && has('strace')))(
    'catches the install script under strace too',
    async () => {
      const dir = project('poisoned-strace', true);
      const r = await ci(dir, ['--base', 'main', '--json', '--tracer', 'strace']);
      expect(r.code, r.stderr).toBe(1);
      const canary = (r.report as Report).alerts.filter((a) => a.rule === 'secrets-canary-read');
      expect(canary.length).toBeGreaterThan(0);
      expect(canary.every((a) => a.phase === 'tests')).toBe(true);
      // config.json is the config as used: --tracer strace over the file's auto, and the sandbox chosen.
      const used = JSON.parse(readFileSync(path.join((r.report as Report).run_dir, 'config.json'), 'utf8'));
      expect(used).toMatchObject({ tracer: 'strace', sandbox: 'bwrap' });
    },
    120_000,
  );

  it.skipIf(!observed)(
    'PASSes the clean twin, exit 0, checkout unchanged',
    async () => {
      const dir = project('clean', false);
      const before = status(dir);
      const r = await ci(dir, ['--base', 'main', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.report?.result).toBe('PASS');
      expect(r.report?.alerts).toEqual([]);
      expect(r.report?.diff.files.map((f) => f.path)).toEqual(['src/greet.sh']);
      expect(status(dir)).toBe(before);
    },
    120_000,
  );

  it.skipIf(!observed)(
    "gives the tests the checkout's installed dependencies (ignored files), in the copy only",
    async () => {
      const dir = project('deps', false);
      setPolicy(dir, () => {
        write(dir, '.gitignore', 'build/\nnode_modules/\n');
        write(
          dir,
          '.agentguard.yaml',
          // The tests need a dependency the job installed, and write a cache beside it.
          'test_command: [sh, -c, ". node_modules/dep/lib.sh && dep_ok && echo c > node_modules/.cache"]\n',
        );
      });
      write(dir, 'node_modules/dep/lib.sh', 'dep_ok() { true; }\n');
      const before = status(dir);
      const r = await ci(dir, ['--base', 'main', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.report?.tests.passed).toBe(true);
      // Not a change of the PR, and the checkout's own node_modules untouched.
      expect(r.report?.diff.files.map((f) => f.path).sort()).toEqual(['src/greet.sh']);
      expect(existsSync(path.join(dir, 'node_modules/.cache'))).toBe(false);
      expect(status(dir)).toBe(before);
    },
    120_000,
  );

  it('--allow-failures prints FAIL and exits 0; without tests nothing runs', async () => {
    const dir = project('allowed', true);
    const r = await ci(dir, ['--base', 'main', '--no-tests', '--allow-failures']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^FAIL/);
    expect(r.stderr).toContain('--allow-failures');
  }, 60_000);
});

/** A checkout whose tests are slow, and `agentguard ci` started on it, resolved once the tests run. */
async function slowCi(name: string, args: string[]) {
  const dir = project(name, false);
  // A slow test command that says (in the copy it runs in) that it has started.
  setPolicy(dir, () =>
    write(dir, '.agentguard.yaml', 'test_command: [sh, -c, "touch started; sleep 93.25; echo done"]\n'),
  );
  write(dir, 'src/extra.sh', 'echo extra\n');
  const before = status(dir);
  const index = readFileSync(path.join(dir, '.git/index'));
  const child = spawn(process.execPath, [CLI, 'ci', ...args], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, NO_COLOR: '1' },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c) => {
    out.stdout += c;
  });
  child.stderr.on('data', (c) => {
    out.stderr += c;
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  // The run is made in a private staging folder (held-output.ts) until it is sealed.
  const staged = () =>
    readdirSync(tmpdir())
      .filter((n) => n.startsWith(`agentguard-ci-${child.pid}-`))
      .map((n) => path.join(tmpdir(), n));
  const runId = () =>
    staged()
      .flatMap((s) => (existsSync(s) ? readdirSync(s).map((id) => path.join(s, id)) : []))
      .filter((run) => existsSync(path.join(run, 'repo', 'started')))
      .map((run) => path.basename(run))[0];
  const deadline = Date.now() + 60_000;
  while (!runId() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(runId(), out.stderr).toBeDefined();
  return { dir, before, index, child, out, exited, runId: runId() as string };
}

/** The cgroups agentguard made for a run (cgroup2 and the v1 pids hierarchy). */
function cgroupsOf(runId: string): string[] {
  const found: string[] = [];
  for (const parent of [
    '/sys/fs/cgroup/unified/agentguard',
    '/sys/fs/cgroup/agentguard',
    '/sys/fs/cgroup/pids/agentguard',
  ])
    if (existsSync(parent))
      for (const name of readdirSync(parent))
        if (name === runId || name.startsWith(`${runId}-`)) found.push(`${parent}/${name}`);
  return found;
}

describe('agentguard ci: Ctrl-C', () => {
  it.skipIf(!observed)(
    'stops the tests, seals what was collected, exits 130 and leaves the checkout and its index as they were',
    async () => {
      const { dir, before, index, child, out, exited } = await slowCi('interrupted', [
        '--json',
        '--allow-failures',
      ]);
      const sentAt = Date.now();
      child.kill('SIGINT');
      // 130 even with --allow-failures, well before the forced path (30 s) or the sleep would end.
      expect(await exited, out.stderr).toBe(130);
      expect(Date.now() - sentAt).toBeLessThan(20_000);
      const report = JSON.parse(out.stdout);
      expect(report.result).toBe('ERROR');
      expect(report.tests).toMatchObject({
        ran: true,
        passed: false,
        reason: 'stopped by the harness before the tests finished',
      });
      expect(report.diff.files.map((f: { path: string }) => f.path)).toEqual(['src/extra.sh']);
      const run = JSON.parse(readFileSync(path.join(report.run_dir, 'evidence/run.json'), 'utf8'));
      expect(run.stopped).toBe('interrupted by SIGINT');
      for (const f of ['report.json', 'report.md', 'evidence/observation.json', 'evidence/tests.json'])
        expect(existsSync(path.join(report.run_dir, f)), f).toBe(true);
      // The test command is gone, and the checkout is exactly as it was.
      expect(spawnSync('pgrep', ['-f', 'sleep 93.25']).status).toBe(1);
      expect(status(dir)).toBe(before);
      expect(readFileSync(path.join(dir, '.git/index')).equals(index)).toBe(true);
      expect(existsSync(path.join(dir, 'started'))).toBe(false);
      // A stopped run is evidence like any other: re-analysed as it is, and in the history.
      const again = await execCli(['analyze', report.run_dir, '--json'], { cwd: dir, env: { HOME: home } });
      expect(JSON.parse(again.stdout).result, again.stderr).toBe('ERROR');
      const rows = await execCli(
        ['reports', 'list', '--json', '--output-dir', path.join(dir, '.agentguard')],
        {
          cwd: dir,
        },
      );
      expect(JSON.parse(rows.stdout)[0]).toMatchObject({ kind: 'ci', result: 'ERROR' });
    },
    120_000,
  );

  it.skipIf(!observed)(
    'after SIGKILL, the next run sweeps what the killed one left (its test command, its cgroups)',
    async () => {
      const { dir, child, exited, runId } = await slowCi('killed', ['--json', '--tracer', 'ebpf']);
      child.kill('SIGKILL');
      await exited;
      expect(cgroupsOf(runId).length).toBeGreaterThan(0);
      // The next run sweeps first (or another agentguard process on the host did already: either
      // way only because the killed one noted its run id and process groups).
      const next = await ci(dir, ['--no-tests']);
      expect(next.code, next.stderr).toBe(0);
      // The killed run's private staging folder went with the sweep too.
      expect(readdirSync(tmpdir()).filter((n) => n.startsWith(`agentguard-ci-${child.pid}-`))).toEqual([]);
      for (let i = 0; i < 50 && cgroupsOf(runId).length > 0; i++)
        await new Promise((r) => setTimeout(r, 200));
      expect(cgroupsOf(runId)).toEqual([]);
      expect(spawnSync('pgrep', ['-f', 'sleep 93.25']).status).toBe(1);
    },
    120_000,
  );
});

describe('agentguard ci over the working tree', () => {
  it('judges staged, unstaged and untracked changes, not ignored files, and leaves the checkout as it was', async () => {
    const dir = project('wt', false);
    write(dir, 'deploy/new.conf', 'x\n'); // untracked
    appendFileSync(path.join(dir, 'tests/run.sh'), '# unstaged\n');
    write(dir, 'src/staged file.sh', 'echo staged\n');
    gitIn(dir, 'add', 'src/staged file.sh');
    write(dir, 'build/ignored.pem', 'x\n'); // ignored: never judged
    const before = status(dir);
    const r = await ci(dir, ['--no-tests', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.report?.diff.files.map((f) => f.path).sort()).toEqual([
      'deploy/new.conf',
      'src/staged file.sh',
      'tests/run.sh',
    ]);
    expect([...(r.report?.failed_checks ?? [])].sort()).toEqual(['forbidden-paths', 'test-tampering']);
    expect(status(dir)).toBe(before);
  }, 60_000);

  it('keeps renames, binary files and names with spaces and newlines', async () => {
    const dir = project('names', false);
    gitIn(dir, 'mv', 'src/greet.sh', 'src/hello.sh');
    write(dir, 'odd\nname .txt', 'a\n');
    writeFileSync(path.join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255]));
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-qm', 'more');
    const r = await ci(dir, ['--base', 'main', '--no-tests', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const files = r.report?.diff.files ?? [];
    expect(files.find((f) => f.path === 'src/hello.sh')).toMatchObject({
      status: 'renamed',
      old_path: 'src/greet.sh',
    });
    expect(files.find((f) => f.path === 'odd\nname .txt')?.status).toBe('added');
    expect(files.find((f) => f.path === 'blob.bin')?.binary).toBe(true);
  }, 60_000);
});

describe('agentguard ci: what is blamed on the PR', () => {
  it("judges from the merge base: commits main gained since are not the PR's", async () => {
    const dir = project('moved', false);
    gitIn(dir, 'checkout', '-q', 'main');
    write(dir, 'deploy/main-only.conf', 'x\n');
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-qm', 'main moved on');
    gitIn(dir, 'checkout', '-q', 'pr');
    const r = await ci(dir, ['--base', 'main', '--no-tests', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.report?.diff.files.map((f) => f.path)).toEqual(['src/greet.sh']);
  }, 60_000);

  it('judges a PR of 100,000 files completely', async () => {
    const dir = project('huge', false);
    // One blob under 100k names, committed on a branch of its own through fast-import (fast).
    const lines = ['blob', 'mark :1', 'data 2', 'x', '', 'commit refs/heads/huge', 'mark :2'];
    lines.push('committer t <t@t> 946684800 +0000', 'data 4', 'huge', 'from refs/heads/main');
    for (let i = 0; i < 100_000; i++) lines.push(`M 100644 :1 gen/d${i % 100}/f${i}.txt`);
    const r0 = spawnSync('git', ['fast-import', '--quiet'], { cwd: dir, input: `${lines.join('\n')}\n` });
    expect(r0.status, r0.stderr?.toString()).toBe(0);
    const r = await ci(dir, ['--base', 'main', '--head', 'huge', '--no-tests', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const files = r.report?.diff.files ?? [];
    expect(files.length).toBe(100_000);
    expect(files.every((f) => f.status === 'added')).toBe(true);
  }, 180_000);

  it('judges a name that is not UTF-8 like any other, committed or untracked, shown with U+FFFD', async () => {
    const dir = project('latin1', false);
    const named = (...parts: (string | number)[]) =>
      Buffer.concat([
        Buffer.from(`${dir}/`),
        ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from([p]))),
      ]);
    writeFileSync(named('bad', 0xff, '.txt'), 'x\n');
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-qm', 'odd name');
    const r = await ci(dir, ['--base', 'main', '--no-tests', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.report?.failed_checks).toEqual([]);
    expect(r.report?.diff.files.map((f) => f.path).sort()).toEqual(['bad\uFFFD.txt', 'src/greet.sh']);
    const patch = readFileSync(path.join(r.report?.run_dir ?? '', 'evidence/diff.patch'), 'utf8');
    expect(patch).toContain('+++ "b/bad\\377.txt"');

    // In the working tree, untracked under a forbidden path: found, named, and the checkout untouched.
    mkdirSync(path.join(dir, 'deploy'));
    writeFileSync(named('deploy/prod', 0xff, '.conf'), 'x\n');
    const before = status(dir);
    const w = await ci(dir, ['--no-tests', '--json']);
    expect(w.code, w.stderr).toBe(1);
    expect(w.report?.failed_checks).toEqual(['forbidden-paths']);
    expect(w.report?.diff.files.map((f) => f.path)).toEqual(['deploy/prod\uFFFD.conf']);
    expect(status(dir)).toBe(before);
  }, 60_000);
});

describe("agentguard ci: the agent's command logs", () => {
  const transcript = (command: string) =>
    `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'fix it' } })}\n${JSON.stringify({
      type: 'assistant',
      message: { content: [{ type: 'tool_use', name: 'Bash', input: { command } }] },
    })}\nnot json\n`;

  function withLogs(name: string, command: string): string {
    const dir = project(name, false);
    setPolicy(dir, () =>
      appendFileSync(path.join(dir, '.agentguard.yaml'), '\nagent_logs: [".agent/*.jsonl"]\n'),
    );
    write(dir, '.agent/session.jsonl', transcript(command));
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-qm', 'the agent logged its session');
    return dir;
  }

  it('reads the logs the PR carries: an unsafe logged command FAILs, a clean log PASSes', async () => {
    const bad = withLogs('log-bad', 'sudo chmod 777 /etc/hosts');
    const r = await ci(bad, ['--base', 'main', '--no-tests', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.report?.failed_checks).toEqual(['unsafe-commands']);
    const unsafe = r.report?.checks.find((c) => c.id === 'unsafe-commands');
    expect(unsafe?.message).toContain('sudo chmod 777 /etc/hosts');
    expect(r.report?.commands.filter((c) => c.role === 'agent-log').map((c) => c.argv)).toEqual([
      ['sh', '-c', 'sudo chmod 777 /etc/hosts'],
    ]);
    const ev = JSON.parse(readFileSync(path.join(r.report?.run_dir ?? '', 'evidence/agent.json'), 'utf8'));
    expect(ev.metadata.agent_logs).toBe('.agent/session.jsonl: 1 command (1 line not understood)');
    const md = readFileSync(reportPath(r.report?.run_dir ?? '', 'markdown'), 'utf8');
    expect(md).toContain("the agent's log .agent/session.jsonl:2");

    const clean = withLogs('log-clean', 'sh tests/run.sh');
    const c = await ci(clean, ['--base', 'main', '--no-tests', '--json']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.report?.commands.filter((x) => x.role === 'agent-log').length).toBe(1);
  }, 60_000);

  it('reads a log given by --agent-log, never follows a logged symlink, and refuses a missing file', async () => {
    const dir = project('log-flag', false);
    setPolicy(dir, () => appendFileSync(path.join(dir, '.agentguard.yaml'), '\nagent_logs: [".agent/**"]\n'));
    // The PR points its "log" at a file outside the checkout: not read.
    const outside = path.join(work, 'outside-log.jsonl');
    writeFileSync(outside, '{"command": "sudo reboot"}\n');
    mkdirSync(path.join(dir, '.agent'));
    spawnSync('ln', ['-s', outside, path.join(dir, '.agent/link.jsonl')]);
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-qm', 'a link');
    const codex = path.join(work, 'codex-rollout.jsonl');
    writeFileSync(
      codex,
      `${JSON.stringify({
        type: 'response_item',
        payload: {
          type: 'function_call',
          name: 'exec_command',
          arguments: JSON.stringify({ cmd: 'git push --force' }),
        },
      })}\n`,
    );
    const r = await ci(dir, ['--base', 'main', '--no-tests', '--json', '--agent-log', codex]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.report?.commands.filter((c) => c.role === 'agent-log').map((c) => c.argv)).toEqual([
      ['sh', '-c', 'git push --force'],
    ]);
    const ev = JSON.parse(readFileSync(path.join(r.report?.run_dir ?? '', 'evidence/agent.json'), 'utf8'));
    expect(ev.metadata.agent_logs).toContain('.agent/link.jsonl: not read (a symlink, not followed)');
    const missing = await ci(dir, ['--no-tests', '--agent-log', 'nope.jsonl']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--agent-log nope.jsonl: no such file');
  }, 60_000);
});

describe('agentguard ci: bad input, one sentence and exit 2', () => {
  it('refuses a config with a task or agent key, naming it', async () => {
    const dir = project('refuse', false);
    appendFileSync(path.join(dir, '.agentguard.yaml'), '\nagent_command: [sh, agent.sh]\n');
    // Working-tree mode reads the policy from HEAD: commit it.
    gitIn(dir, 'commit', '-qam', 'agent key');
    const r = await ci(dir, ['--no-tests']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("field 'agent_command'");
    expect(r.stderr).toContain('no task or agent');
  });

  it('says when there is no config, no repository, or no such ref', async () => {
    const dir = project('refs', false);
    const noRepo = tempDir('ag-ci-norepo-');
    const a = await ci(noRepo, ['--no-tests']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('is not inside a git repository');
    const b = await ci(dir, ['--base', 'no-such-branch', '--no-tests']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--base no-such-branch is not a branch, tag or commit');
    gitIn(dir, 'rm', '-q', '.agentguard.yaml');
    gitIn(dir, 'commit', '-qm', 'no policy');
    const h = await ci(dir, ['--head', 'pr', '--no-tests']);
    expect(h.code).toBe(2);
    expect(h.stderr).toContain('--head needs --base');
    const c = await ci(dir, ['--no-tests']);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('no CI policy found');
    rmSync(noRepo, { recursive: true, force: true });
  });

  it('tells a shallow clone to fetch the missing base, never a raw git message', async () => {
    const origin = project('origin', false);
    const clone = path.join(work, 'shallow');
    sh(work, 'git', 'clone', '-q', '--depth', '1', '--branch', 'pr', `file://${origin}`, clone);
    const base = gitIn(origin, 'rev-parse', 'main').trim();
    const r = await ci(clone, ['--base', base, '--no-tests']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shallow clone');
    expect(r.stderr).toContain('fetch-depth: 0');
    expect(r.stderr).toContain(`git fetch origin ${base}`);
    expect(r.stderr).not.toMatch(/fatal:/);
  });

  it('notes a dirty checkout in --base mode and judges only the commits', async () => {
    const dir = project('dirty', false);
    write(dir, 'deploy/uncommitted.conf', 'x\n');
    const r = await ci(dir, ['--base', 'main', '--no-tests', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('uncommitted changes');
    expect(r.report?.diff.files.map((f) => f.path)).toEqual(['src/greet.sh']);
  });
});
