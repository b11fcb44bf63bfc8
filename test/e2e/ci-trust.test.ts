import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, execCli, tempDir } from './exec-cli.js';

/*
 * CI mode against a pull request that attacks its judge: it rewrites the policy to judge itself
 * leniently, or commits a link where agentguard writes its reports. The PR never chooses its policy
 * or where agentguard writes.
 */

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const observed = isRoot && has('bwrap') && (has('bpftrace') || has('strace'));
if (!observed) console.warn('ci-trust e2e (observed tests) skipped: it needs root, bwrap and a tracer');

const work = tempDir('ag-ci-trust-');
const home = path.join(work, 'home');
mkdirSync(home);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function gitIn(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function write(dir: string, rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
}

const BASE_POLICY = [
  'test_command: [sh, tests/run.sh]',
  'test_paths: ["tests/**"]',
  'forbidden_paths: [".github/**"]',
  'allowed_paths: ["src/**", "tests/**"]',
  'security: {rules: [ci/rules.yaml]}',
  '',
].join('\n');

/** A project on `main` with the base policy, and a branch `pr` checked out with `change` applied and committed. */
function project(name: string, change: (dir: string) => void, policy = BASE_POLICY): string {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
  write(dir, 'src/app.sh', 'echo app\n');
  write(dir, 'tests/run.sh', 'sh src/app.sh > /dev/null\n');
  write(dir, 'ci/rules.yaml', 'lists:\n  ci_extra: [/nonexistent/ci-extra]\n');
  write(dir, '.agentguard.yaml', policy);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-qm', 'base');
  gitIn(dir, 'checkout', '-qb', 'pr');
  change(dir);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '--allow-empty', '-m', 'pr');
  return dir;
}

type Report = {
  result: string;
  run_dir: string;
  failed_checks: string[];
  alerts: { rule: string; phase?: string; path?: string }[];
  checks: { id: string; passed: boolean; message: string }[];
};

async function ci(dir: string, args: string[]) {
  const r = await execCli(['ci', ...args], { cwd: dir, env: { HOME: home } });
  const report: Report | null =
    args.includes('--json') && r.stdout.startsWith('{') ? JSON.parse(r.stdout) : null;
  return { ...r, report };
}

/** The PR of the issue: a lenient policy, a workflow file, and a test that reads the runner's SSH key. */
function hostilePr(dir: string): void {
  write(
    dir,
    '.agentguard.yaml',
    [
      'test_command: [sh, tests/run.sh]',
      'sandbox: local',
      'tracer: off',
      'network: {mode: host}',
      'allowed_paths: ["**"]',
      'security: {default_rules: false}',
      '',
    ].join('\n'),
  );
  write(dir, 'ci/rules.yaml', 'lists: {}\n');
  write(dir, '.github/workflows/release.yml', 'on: push\njobs: {}\n');
  write(
    dir,
    'tests/run.sh',
    'sh src/app.sh > /dev/null\nhead -c 16 "$HOME/.ssh/id_rsa" > /dev/null || true\n',
  );
}

describe('agentguard ci judges a pull request by the policy of its base', () => {
  it.skipIf(!observed)(
    'FAILs the PR that rewrites the policy to sandbox local and tracer off, naming the change',
    async () => {
      const dir = project('hostile', hostilePr);
      const r = await ci(dir, ['--base', 'main', '--json']);
      expect(r.code, r.stderr).toBe(1);
      const report = r.report as Report;
      expect(report.result).toBe('FAIL');
      expect(report.failed_checks).toEqual(expect.arrayContaining(['forbidden-paths', 'scope']));
      const forbidden = report.checks.find((c) => c.id === 'forbidden-paths');
      expect(forbidden?.message).toContain('.agentguard.yaml');
      expect(forbidden?.message).toContain('ci/rules.yaml');
      expect(forbidden?.message).toContain('.github/workflows/release.yml');
      expect(r.stderr).toContain('the changes edit the CI policy (.agentguard.yaml, ci/rules.yaml)');
      expect(r.stderr).toContain('main:.agentguard.yaml');
      // The tests ran sandboxed and traced, with the default rules: the SSH key read is caught.
      expect(report.alerts.map((a) => a.rule)).toContain('secrets-canary-read');
      const used = JSON.parse(readFileSync(path.join(report.run_dir, 'config.json'), 'utf8'));
      expect(used.sandbox).not.toBe('local');
      expect(used.tracer).not.toBe('off');
      expect(used.network.mode).not.toBe('host');
      expect(used.security.default_rules).toBe(true);
      const agent = JSON.parse(readFileSync(path.join(report.run_dir, 'evidence/agent.json'), 'utf8'));
      expect(agent.metadata.policy).toBe('main:.agentguard.yaml');
    },
    120_000,
  );

  it("judges the working tree by HEAD's policy, so an uncommitted policy edit is caught too", async () => {
    const dir = project('worktree', () => {});
    write(
      dir,
      '.agentguard.yaml',
      'test_command: [sh, tests/run.sh]\nforbidden_paths: []\nallowed_paths: ["**"]\n',
    );
    write(dir, '.github/workflows/x.yml', 'on: push\n');
    const r = await ci(dir, ['--no-tests', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('the policy is HEAD:.agentguard.yaml');
    const forbidden = r.report?.checks.find((c) => c.id === 'forbidden-paths');
    expect(forbidden?.message).toContain('.agentguard.yaml');
    expect(forbidden?.message).toContain('.github/workflows/x.yml');
  }, 60_000);

  it('takes --policy from outside the checkout, and refuses one inside it', async () => {
    const dir = project('policy-flag', hostilePr);
    const inside = await ci(dir, ['--base', 'main', '--no-tests', '--policy', '.agentguard.yaml']);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain('lies inside the checkout being judged');
    // A link from outside into the checkout is inside too.
    const link = path.join(work, 'policy-link.yaml');
    symlinkSync(path.join(dir, '.agentguard.yaml'), link);
    const linked = await ci(dir, ['--base', 'main', '--no-tests', '--policy', link]);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain('lies inside the checkout being judged');
    const outside = path.join(work, 'operator-policy.yaml');
    writeFileSync(outside, 'test_command: [sh, tests/run.sh]\nforbidden_paths: [".github/**"]\n');
    const r = await ci(dir, ['--base', 'main', '--no-tests', '--json', '--policy', outside]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.report?.failed_checks).toEqual(['forbidden-paths']);
    const forbidden = r.report?.checks.find((c) => c.id === 'forbidden-paths');
    // The repository's own policy file is not the policy here: editing it is no policy change.
    expect(forbidden?.message).not.toContain('.agentguard.yaml');
    const both = await ci(dir, ['--base', 'main', '--no-tests', '--policy', outside, '--config', 'x.yaml']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--config and --policy both name the policy');
  }, 60_000);

  it('says when the base commit has no policy, or holds it as a link, or names a rule file outside', async () => {
    const none = project('no-policy', () => {});
    gitIn(none, 'checkout', '-q', 'main');
    gitIn(none, 'rm', '-q', '.agentguard.yaml');
    gitIn(none, 'commit', '-qm', 'no policy on main');
    gitIn(none, 'checkout', '-q', 'pr');
    const a = await ci(none, ['--base', 'main', '--no-tests']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('no CI policy found');
    expect(a.stderr).toContain('is committed in main');

    const outside = project(
      'rule-outside',
      () => {},
      'test_command: [true]\nsecurity: {rules: [../x.yaml]}\n',
    );
    const b = await ci(outside, ['--base', 'main', '--no-tests']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("main:.agentguard.yaml: field 'security.rules'");

    const bad = project('bad-key', () => {}, 'test_command: [true]\nforbiden_paths: []\n');
    const c = await ci(bad, ['--base', 'main', '--no-tests']);
    expect(c.code).toBe(2);
    // Named as the committed file, never as the private folder it was read from.
    expect(c.stderr).toContain('main:.agentguard.yaml');
    expect(c.stderr).not.toContain('agentguard-policy-');
  }, 60_000);
});

describe('agentguard ci keeps the isolation floor', () => {
  it.skipIf(!isRoot)(
    "refuses the base policy's sandbox local unless the operator passes --allow-below-floor",
    async () => {
      const dir = project(
        'floor',
        (d) => write(d, 'src/app.sh', 'echo app2\n'),
        ['test_command: [sh, tests/run.sh]', 'sandbox: local', ''].join('\n'),
      );
      const r = await ci(dir, ['--base', 'main']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("field 'sandbox'");
      expect(r.stderr).toContain('--allow-below-floor');
      expect(existsSync(path.join(dir, '.agentguard', 'ci'))).toBe(false);
      const allowed = await ci(dir, ['--base', 'main', '--allow-below-floor', '--json']);
      expect(allowed.code, allowed.stderr).toBe(0);
    },
    120_000,
  );
});

describe('agentguard ci shows the tests no host folder, mirror or internal host the operator did not allow', () => {
  it.skipIf(!observed)(
    "refuses a base policy (a fork's, say) that shows a host folder, by its path or a link to it, or a writable one; the host policy allows a read-only one",
    async () => {
      const secret = path.join(work, 'runner-ssh');
      write(secret, 'id_rsa', 'PRIVATE\n');
      const tools = path.join(work, 'tools');
      mkdirSync(tools);
      symlinkSync(secret, path.join(tools, 'node'));
      const policyWith = (extra: string) => `${BASE_POLICY}${extra}\n`;
      const hostPolicy = path.join(work, 'host-policy.yaml');
      writeFileSync(hostPolicy, `host_paths: [${tools}]\n`, { mode: 0o644 });
      const refused = async (
        name: string,
        extra: string,
        field: string,
        env: Record<string, string> = {},
      ) => {
        const dir = project(name, (d) => write(d, 'src/app.sh', 'echo changed\n'), policyWith(extra));
        const r = await execCli(['ci', '--base', 'main', '--json'], {
          cwd: dir,
          env: { HOME: home, ...env },
        });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(`main:.agentguard.yaml: field '${field}': the changes main...HEAD`);
        expect(r.stderr).toContain('--allow-below-floor');
        expect(existsSync(path.join(dir, '.agentguard/ci'))).toBe(false);
        return r.stderr;
      };
      const named = await refused('host-toolchain', `toolchains: [${secret}]`, 'toolchains[0]');
      expect(named).toContain(`listing ${secret} under host_paths in /etc/agentguard/host-policy.yaml`);
      // Listed folder, but the toolchain is a link in it to a folder the operator did not list.
      const env = { AGENTGUARD_HOST_POLICY: hostPolicy };
      await refused('host-link', `toolchains: [${path.join(tools, 'node')}]`, 'toolchains[0]', env);
      await refused(
        'host-writable',
        `sandbox: {mounts: [{path: ${tools}, writable: true}]}`,
        'sandbox.mounts[0]',
        env,
      );
      await refused(
        'host-network',
        'network: {mode: allowlist, allow: ["169.254.169.254"]}',
        'network.allow[0]',
      );
      // What the operator listed, read-only, runs.
      const real = path.join(tools, 'bin');
      mkdirSync(real);
      const dir = project('host-allowed', () => {}, policyWith(`toolchains: [${real}]`));
      const ok = await execCli(['ci', '--base', 'main', '--json'], { cwd: dir, env: { HOME: home, ...env } });
      expect(ok.code, ok.stderr).toBe(0);
    },
    240_000,
  );
});

describe('agentguard ci never writes through a link the checkout holds', () => {
  it('writes nothing through a link swapped in after the check: the harness, paused there by a hook, writes through the folder it holds', async () => {
    const victim = path.join(work, 'victim-race');
    mkdirSync(victim);
    const dir = project('out-race', (d) => write(d, 'src/app.sh', 'echo changed\n'));
    // The hook stops the harness at the run's first step, after the output folder was checked.
    const child = spawn(process.execPath, [CLI, 'ci', '--base', 'main', '--no-tests', '--json'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        AGENTGUARD_TEST_FAULT: 'signal:SIGSTOP:prepare',
      },
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
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const state = () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.[0];
    for (let i = 0; i < 600 && state() !== 'T'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(state()).toBe('T');
    // What a process the pull request left behind does: the output folder becomes a link elsewhere.
    const out = path.join(dir, '.agentguard');
    expect(existsSync(path.join(out, 'ci'))).toBe(true);
    renameSync(out, path.join(dir, 'moved-away'));
    symlinkSync(victim, out);
    process.kill(child.pid as number, 'SIGCONT');
    expect(await exited, stderr).toBe(0);
    expect(readdirSync(victim)).toEqual([]);
    const report = JSON.parse(stdout) as Report;
    const moved = path.join(dir, 'moved-away/ci', path.basename(report.run_dir));
    expect(existsSync(path.join(moved, 'report.json'))).toBe(true);
    expect(existsSync(path.join(dir, 'moved-away/history.db'))).toBe(true);
    expect(report.run_dir).toBe(path.join(out, 'ci', path.basename(report.run_dir)));
    expect(stderr).toContain('was moved or replaced during the run');
    // The sealed run verifies where it landed; its history row is in the held folder's history.db.
    const verify = await execCli(['trace', 'verify', moved], { cwd: dir, env: { HOME: home } });
    expect(verify.code, verify.stderr).toBe(0);
  }, 120_000);

  it('refuses a committed .agentguard link, a committed file in it, and a planted link, writing nothing', async () => {
    const target = path.join(work, 'victim');
    mkdirSync(target);
    const linked = project('out-link', (dir) => symlinkSync(target, path.join(dir, '.agentguard')));
    const a = await ci(linked, ['--base', 'main', '--no-tests']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain(path.join(linked, '.agentguard'));
    expect(a.stderr).toContain('--output-dir');
    expect(readdirSync(target)).toEqual([]);

    const history = path.join(work, 'victim-history');
    const committed = project('out-file', (dir) => {
      mkdirSync(path.join(dir, '.agentguard'));
      symlinkSync(history, path.join(dir, '.agentguard/history.db'));
    });
    const b = await ci(committed, ['--base', 'main', '--no-tests']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('is committed in the checkout');
    expect(existsSync(history)).toBe(false);

    // Not committed, but planted before agentguard ran (by an install script of the PR, say).
    const planted = project('out-planted', () => {});
    mkdirSync(path.join(planted, '.agentguard'));
    symlinkSync(target, path.join(planted, '.agentguard/ci'));
    const c = await ci(planted, ['--base', 'main', '--no-tests']);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain(`${path.join(planted, '.agentguard/ci')} is a symlink`);
    expect(readdirSync(target)).toEqual([]);
    // Reports to a folder outside the checkout are fine.
    const d = await ci(planted, ['--base', 'main', '--no-tests', '--output-dir', path.join(work, 'out')]);
    expect(d.code, d.stderr).toBe(0);
  }, 60_000);
});

describe("agentguard ci runs nothing a pull request's git content names, and shows the tests no host file through it", () => {
  it.skipIf(!observed)(
    'filter, diff and merge drivers the runner defines and the PR selects, submodules of local paths and file:// URLs, an LFS pointer and links to host files',
    async () => {
      // The runner's own git config (as git-lfs installs one) defines drivers; the PR's
      // .gitattributes selects them for every file. Each would leave its marker if git ran it.
      const marker = (what: string) => path.join(work, `ran-${what}`);
      writeFileSync(
        path.join(home, '.gitconfig'),
        [
          '[filter "pwn"]',
          `\tclean = touch ${marker('clean')}; cat`,
          `\tsmudge = touch ${marker('smudge')}; cat`,
          `\tprocess = touch ${marker('process')}`,
          '[diff "pwn"]',
          `\ttextconv = touch ${marker('textconv')}; cat`,
          `\tcommand = touch ${marker('diff')}`,
          '[merge "pwn"]',
          `\tdriver = touch ${marker('merge')}`,
          '',
        ].join('\n'),
      );
      const secret = path.join(work, 'runner-secret');
      const SECRET = 'runner-secret-5f1e2d';
      mkdirSync(secret, { recursive: true });
      writeFileSync(path.join(secret, 'token'), `${SECRET}\n`);
      // A repository on the runner a submodule could be cloned from.
      const local = path.join(work, 'local-repo');
      mkdirSync(local);
      gitIn(local, 'init', '-q');
      write(local, 'token', `${SECRET}\n`);
      gitIn(local, 'add', '-A');
      gitIn(local, 'commit', '-qm', 'local');
      const localHead = gitIn(local, 'rev-parse', 'HEAD').trim();
      const LFS = `version https://git-lfs.github.com/spec/v1\noid sha256:${'a'.repeat(64)}\nsize 12\n`;
      const dir = project('git-content', (d) => {
        write(
          d,
          '.gitattributes',
          '* filter=pwn diff=pwn merge=pwn\n*.bin filter=lfs diff=lfs merge=lfs -text\n',
        );
        write(d, 'src/app.sh', 'echo app2\n');
        write(d, 'src/model.bin', LFS);
        write(
          d,
          '.gitmodules',
          [
            '[submodule "vendor/a"]',
            '\tpath = vendor/a',
            `\turl = ${local}`,
            '[submodule "vendor/b"]',
            '\tpath = vendor/b',
            `\turl = file://${local}`,
            '',
          ].join('\n'),
        );
        // Gitlinks as an uninitialised submodule leaves them: an empty folder, the commit in the index.
        for (const sub of ['vendor/a', 'vendor/b']) {
          mkdirSync(path.join(d, sub), { recursive: true });
          gitIn(d, 'update-index', '--add', '--cacheinfo', `160000,${localHead},${sub}`);
        }
        symlinkSync(path.join(secret, 'token'), path.join(d, 'src/token-link'));
        symlinkSync(secret, path.join(d, 'tests/secret-dir'));
        // The PR's tests read through its links: inside the sandbox they lead nowhere.
        write(
          d,
          'tests/run.sh',
          'sh src/app.sh > /dev/null\ncat src/token-link tests/secret-dir/token vendor/a/token 2>/dev/null || true\n',
        );
      });
      const r = await ci(dir, ['--base', 'main', '--json']);
      expect(r.report, r.stderr).not.toBeNull();
      const report = r.report as Report;
      for (const what of ['clean', 'smudge', 'process', 'textconv', 'diff', 'merge'])
        expect(existsSync(marker(what)), what).toBe(false);
      // Nothing of the runner's secret came into the run: not by a submodule, not through a link.
      const seen: string[] = [];
      const walk = (p: string) => {
        for (const e of readdirSync(p, { withFileTypes: true })) {
          const f = path.join(p, e.name);
          if (e.isDirectory()) walk(f);
          else if (e.isFile() && readFileSync(f).includes(SECRET)) seen.push(f);
        }
      };
      walk(report.run_dir);
      expect(seen).toEqual([]);
      // The judged tree: the PR's change is there, its submodules are not, and the LFS pointer is
      // the text it is (nothing fetched, nothing smudged).
      const judged = path.join(report.run_dir, 'repo');
      expect(readFileSync(path.join(judged, 'src/app.sh'), 'utf8')).toBe('echo app2\n');
      expect(existsSync(path.join(judged, 'vendor/a/token'))).toBe(false);
      expect(existsSync(path.join(judged, 'vendor/b/token'))).toBe(false);
      expect(readFileSync(path.join(judged, 'src/model.bin'), 'utf8')).toBe(LFS);
      rmSync(path.join(home, '.gitconfig'));
    },
    180_000,
  );

  it('refuses a PR that ships a results folder of its own (a forged or replayed report), writing nothing', async () => {
    const forged = project('forged-results', (d) => {
      write(d, 'src/app.sh', 'echo app2\n');
      write(
        d,
        '.agentguard/ci/20261201-000000-0badc0de/report.json',
        JSON.stringify({ run_id: '20261201-000000-0badc0de', result: 'PASS', score: 100 }),
      );
      write(d, '.agentguard/ci/20261201-000000-0badc0de/manifest.json', '{}');
    });
    const r = await ci(forged, ['--base', 'main', '--no-tests']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is committed in the checkout');
    expect(readdirSync(path.join(forged, '.agentguard/ci'))).toEqual(['20261201-000000-0badc0de']);
  }, 60_000);
});
