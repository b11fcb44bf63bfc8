import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SECCOMP_FACT } from '../evidence/seccomp-policy.js';
import { runCommand } from '../exec/run-command.js';
import { bwrapArgs, bwrapAvailability, bwrapSandbox, seccompRefusal } from './bwrap.js';
import { hostSecretMasks } from './host-masks.js';
import { AUDIT_ARCH_X86_64, seccompBytes, seccompProgram } from './seccomp-filter.js';
import { SYSTEM_VIEW } from './system-view.js';
import type { SandboxContext, SandboxSession } from './types.js';

const available = bwrapAvailability();
if (!available.ok) console.warn(`bwrap hiding tests skipped: ${available.reason} (fix: ${available.fix})`);
const hasCc = spawnSync('cc', ['--version']).status === 0;
if (!hasCc) console.warn('seccomp tests skipped: no C compiler (fix: apt-get install -y gcc)');
const x64 = process.arch === 'x64';
if (!x64) console.warn(`seccomp tests skipped: the filter is x86_64-only and this host is ${process.arch}`);

const base = mkdtempSync(path.join(tmpdir(), 'ag-hide-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A run laid out as the CLI lays it out when run from the config's folder: `<config>/.agentguard/runs/<id>`. */
function layout(name: string) {
  const configDir = path.join(base, name);
  const output = path.join(configDir, '.agentguard');
  const runDir = path.join(output, 'runs', 'this-run');
  const repo = path.join(runDir, 'repo');
  const home = path.join(runDir, 'home');
  const task = path.join(runDir, 'task');
  for (const d of [repo, path.join(home, '.ssh'), task, path.join(output, 'runs', 'old-run', 'home', '.ssh')])
    mkdirSync(d, { recursive: true });
  writeFileSync(path.join(configDir, 'agentguard.yaml'), 'name: t\n');
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'THIS-RUN-CANARY\n');
  writeFileSync(path.join(output, 'runs', 'old-run', 'home', '.ssh', 'id_rsa'), 'OLD-RUN-CANARY\n');
  writeFileSync(path.join(output, 'history.db'), 'db');
  writeFileSync(path.join(task, 'prompt.md'), 'do it\n');
  const ctx: SandboxContext = {
    runId: `hide-${process.pid}-${name}`,
    runDir,
    repoDir: repo,
    hostHome: home,
    agentHome: '/home/agent',
    visible: [configDir, task],
    network: { mode: 'none', allow: [], hosts: {} },
  };
  return { ctx, configDir, output, runDir, repo, home, task };
}

async function inside(s: SandboxSession, cwd: string, script: string) {
  return runCommand({
    spec: s.wrap({ argv: ['sh', '-c', script], cwd, env: { PATH: '/usr/bin:/bin', HOME: '/home/agent' } }),
    timeoutMs: 20_000,
    maxOutputBytes: 256 * 1024,
    killGraceMs: 200,
  });
}

describe('bwrap mount order', () => {
  it('masks the output folder after showing the config folder and before binding the run back', () => {
    const { ctx, configDir, output, repo, task } = layout('order');
    const args = bwrapArgs(ctx, repo, { emptyFile: '/x/empty', seccompFile: null }).join(' ');
    const at = (s: string) => args.indexOf(s);
    expect(at(`--ro-bind ${configDir} ${configDir}`)).toBeGreaterThan(at('--tmpfs /tmp'));
    expect(at(`--tmpfs ${output}`)).toBeGreaterThan(at(`--ro-bind ${configDir} ${configDir}`));
    expect(at(`--bind ${repo} ${repo}`)).toBeGreaterThan(at(`--tmpfs ${output}`));
    expect(at(`--ro-bind ${task} ${task}`)).toBeGreaterThan(at(`--tmpfs ${output}`));
    expect(args).not.toContain('--seccomp');
  });

  it('lists only root-only files and folders that exist', () => {
    const root = path.join(base, 'fakeroot');
    mkdirSync(path.join(root, 'etc/ssh'), { recursive: true });
    mkdirSync(path.join(root, 'root'), { recursive: true });
    writeFileSync(path.join(root, 'etc/shadow'), 'x');
    writeFileSync(path.join(root, 'etc/ssh/ssh_host_ed25519_key'), 'k');
    writeFileSync(path.join(root, 'etc/ssh/ssh_host_ed25519_key.pub'), 'k');
    expect(hostSecretMasks(root)).toEqual([
      { path: path.join(root, 'etc/shadow'), how: 'empty file' },
      { path: path.join(root, 'etc/ssh/ssh_host_ed25519_key'), how: 'empty file' },
    ]);
  });
});

describe('seccomp program', () => {
  it('is the raw sock_filter array bwrap reads: 8 bytes an instruction, arch checked first', () => {
    const bytes = seccompBytes();
    expect(bytes.length).toBe(seccompProgram().length * 8);
    expect(bytes.readUInt16LE(0)).toBe(0x20); // load
    expect(bytes.readUInt32LE(4)).toBe(4); // seccomp_data.arch
    expect(bytes.readUInt32LE(12)).toBe(AUDIT_ARCH_X86_64);
  });
});

describe.skipIf(!available.ok)('seccomp trial', () => {
  it('accepts the program and names why bwrap refuses a broken one', () => {
    const good = path.join(base, 'good.bpf');
    const bad = path.join(base, 'bad.bpf');
    writeFileSync(good, seccompBytes());
    writeFileSync(bad, Buffer.from([1, 2, 3]));
    expect(seccompRefusal(good)).toBeNull();
    expect(seccompRefusal(bad)).toMatch(/seccomp/i);
  });
});

describe.skipIf(!available.ok)('bwrap hides what the agent must not read', () => {
  it('shows nothing of the output folder when it lies under the config folder, except this run', async () => {
    const { ctx, configDir, output, runDir, repo } = layout('under-config');
    const s = await bwrapSandbox.start(ctx);
    const r = await inside(
      s,
      repo,
      [
        `cat ${runDir}/home/.ssh/id_rsa`,
        `cat ${output}/runs/old-run/home/.ssh/id_rsa`,
        `cat ${output}/history.db`,
        `cat ${runDir}/evidence/canaries.json`,
        `ls ${runDir}/sandbox`,
        `echo FILES; find ${output} -type f | sort`,
        `echo CONFIG; cat ${configDir}/agentguard.yaml`,
        'echo HOME; cat ~/.ssh/id_rsa',
        'echo edit > mine.txt',
        `touch ${output}/planted 2>/dev/null && echo PLANTED`,
        `touch ${runDir}/evidence.json 2>/dev/null && echo PLANTED`,
        'touch /root/planted 2>/dev/null && echo PLANTED',
      ].join('; '),
    );
    await s.stop();
    expect(r.stdout).toBe(`FILES\n${runDir}/task/prompt.md\nCONFIG\nname: t\nHOME\nTHIS-RUN-CANARY\n`);
    expect(r.stderr).not.toContain('CANARY');
    expect(readFileSync(path.join(repo, 'mine.txt'), 'utf8')).toBe('edit\n');
    expect(s.facts.hidden).toContain(`${output} (empty folder)`);
  });

  it('shows root-only files of /etc empty', async () => {
    const { ctx, repo } = layout('host-secrets');
    const s = await bwrapSandbox.start(ctx);
    const r = await inside(s, repo, 'wc -c < /etc/shadow; wc -c < /etc/gshadow');
    await s.stop();
    expect(r.stdout).toBe('0\n0\n');
    expect(s.facts.hidden).toContain('/etc/shadow (empty file)');
  });

  it('shows no top-level folder but the system folders, the private ones and the way to the run', async () => {
    const { ctx, repo } = layout('default-deny');
    // A world-readable file: only its absence from the view keeps it from the agent, not its mode.
    const planted = '/var/tmp/agentguard-default-deny-probe.txt';
    writeFileSync(planted, 'host-state\n', { mode: 0o644 });
    try {
      const s = await bwrapSandbox.start(ctx);
      const r = await inside(
        s,
        repo,
        `ls -A /; echo READ; cat ${planted} /var/log/apt/term.log 2>/dev/null; echo TOOLS; ls /usr/bin/env /bin/sh`,
      );
      await s.stop();
      const [top = '', rest = ''] = r.stdout.split('READ\n');
      const names = top.trim().split('\n');
      const allowed = new Set([...SYSTEM_VIEW.map((d) => d.slice(1)), 'dev', 'proc', 'tmp', 'run']);
      // The run's own folders sit under their top-level folder (here /tmp, /home), which holds only them.
      for (const dir of [ctx.repoDir, ctx.agentHome, ...ctx.visible])
        allowed.add(dir.split('/')[1] as string);
      expect(names.filter((n) => !allowed.has(n))).toEqual([]);
      for (const gone of ['var', 'root', 'srv', 'mnt', 'media', 'boot', 'work'])
        expect(names).not.toContain(gone);
      expect(rest).toBe('TOOLS\n/bin/sh\n/usr/bin/env\n');
      for (const dir of SYSTEM_VIEW.filter((d) => existsSync(d))) expect(s.facts.shown).toContain(dir);
    } finally {
      rmSync(planted, { force: true });
    }
  });

  describe.skipIf(!hasCc || !x64)('seccomp', () => {
    const bin = path.join(base, 'bin');
    const compile = (name: string, source: string, extra: string[] = []) => {
      mkdirSync(bin, { recursive: true });
      const c = path.join(bin, `${name}.c`);
      writeFileSync(c, source);
      const r = spawnSync('cc', ['-static', '-O1', ...extra, '-o', path.join(bin, name), c], {
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`cc failed: ${r.stderr}`);
    };

    it('refuses io_uring with EPERM and 32-bit int $0x80 calls with ENOSYS', async () => {
      compile(
        'uring',
        `#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(void) {
  char params[120]; memset(params, 0, sizeof params);
  long r = syscall(425, 8, params);
  printf("io_uring_setup=%ld errno=%d\\n", r, r < 0 ? errno : 0);
  return 0;
}
`,
      );
      compile(
        'int80',
        `#include <stdio.h>
int main(void) {
  static const char path[] = "/etc/hostname";
  long r;
  /* i386 open (5); a non-PIE static binary keeps the path below 4 GiB. */
  __asm__ volatile ("int $0x80" : "=a"(r) : "a"(5), "b"(path), "c"(0), "d"(0) : "memory");
  printf("int80_open=%ld\\n", r);
  return 0;
}
`,
        ['-no-pie'],
      );
      // The programs work outside the sandbox, so the sandbox is what stops them.
      expect(spawnSync(path.join(bin, 'uring'), { encoding: 'utf8' }).stdout).toMatch(
        /^io_uring_setup=\d+ errno=0/,
      );
      expect(spawnSync(path.join(bin, 'int80'), { encoding: 'utf8' }).stdout).toMatch(/^int80_open=\d+\n/);

      const { ctx, repo } = layout('seccomp');
      const s = await bwrapSandbox.start({ ...ctx, visible: [...ctx.visible, bin] });
      const r = await inside(
        s,
        repo,
        `${bin}/uring; ${bin}/int80; test -e /proc/self/fd/9 && echo FD-LEAKED`,
      );
      await s.stop();
      expect(r.stdout).toBe('io_uring_setup=-1 errno=1\nint80_open=-38\n');
      expect(s.facts.seccomp).toBe(SECCOMP_FACT);
    });

    it('still runs node, python3 and git', async () => {
      const { ctx, repo } = layout('tools');
      const nodeDir = path.dirname(path.dirname(process.execPath));
      const s = await bwrapSandbox.start({ ...ctx, visible: [...ctx.visible, nodeDir] });
      const r = await inside(
        s,
        repo,
        `${process.execPath} -e "require('fs').promises.readFile('/etc/hostname').then(() => console.log('node ok'))"; ` +
          'python3 -c "print(\'python ok\')"; git init -q . && git config user.email a@b && git config user.name a && ' +
          'echo x > f && git add f && git commit -qm m && echo git ok',
      );
      await s.stop();
      expect(r.stdout).toBe('node ok\npython ok\ngit ok\n');
    });
  });
});
