import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../package-root.js';
import { evaluateRules } from './evaluate.js';
import { loadRuleSet } from './load-rules.js';
import { CTX, HOME, Trace, WS } from './test-events.js';

/**
 * Rules at ATT&CK level (issue 38): Python and git startup hooks as persistence, credential-file
 * searches, kernel-module tools judged by what they do, hard links to protected files. Each block
 * holds the spellings an attacker would try next and the everyday commands that must stay quiet.
 */
const rules = loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') });
const ids = (t: Trace) =>
  evaluateRules({ syscalls: t.events, network: t.records }, rules, CTX).map((a) => a.rule);

describe('startup hooks', () => {
  const write = (file: string, proc = '/usr/bin/python3', argv = ['python3', 'x.py']) => {
    const t = new Trace();
    t.exec(2, 1, proc, argv).open(2, file, 'create');
    return ids(t);
  };

  it('a .pth or sitecustomize in a virtual environment of the workspace or /tmp is persistence', () => {
    for (const file of [
      `${WS}/.venv/lib/python3.11/site-packages/evil.pth`,
      '/tmp/venv/lib/python3.12/site-packages/zz.pth',
      '/tmp/venv/lib/python3.12/site-packages/sitecustomize.py',
      `${WS}/.pythonrc.py`,
    ])
      expect(write(file), file).toEqual(['persist-startup-hook']);
    // In the workspace, sitecustomize and usercustomize were already package configuration.
    expect(write(`${WS}/.venv/lib/python3.11/site-packages/usercustomize.py`)).toEqual([
      'persist-package-config',
    ]);
  });

  it('outside the workspace they are protected paths, refused attempts included', () => {
    for (const file of [
      `${HOME}/.local/lib/python3.11/site-packages/evil.pth`,
      `${HOME}/.local/share/uv/tools/ruff/lib/python3.12/site-packages/x.pth`,
      `${HOME}/.pyenv/versions/3.11.7/lib/python3.11/site-packages/evil.pth`,
      `${HOME}/.pyenv/versions/3.11.7/lib/python3.11/sitecustomize.py`,
      '/usr/lib/python3/dist-packages/evil.pth',
      '/usr/local/lib/python3.11/site-packages/usercustomize.py',
      '/etc/python3.11/sitecustomize.py',
      `${HOME}/.pythonrc`,
      `${HOME}/.ipython/profile_default/startup/00-x.py`,
      `${HOME}/.git-templates/hooks/post-checkout`,
      '/usr/share/git-core/templates/hooks/pre-commit',
      '/etc/gitconfig',
    ])
      expect(write(file), file).toEqual(['integrity-protected-path']);
    const refused = new Trace();
    refused.exec(2, 1, '/usr/bin/cp', ['cp']).open(2, '/usr/lib/python3/dist-packages/a.pth', 'create', -30);
    expect(ids(refused)).toEqual(['integrity-protected-path']);
  });

  it('a .pth outside a site folder, reads of hooks and package installs are quiet', () => {
    expect(write(`${WS}/tests/fixtures/paths.pth`)).toEqual([]);
    expect(write(`${WS}/docs/site-packages.md`)).toEqual([]);
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/python3', ['python3', '-c', 'import site'])
      .open(2, '/usr/lib/python3/dist-packages/distutils-precedence.pth')
      .open(2, `${HOME}/.pythonrc`);
    // python -m venv: ensurepip runs pip from `python -c`, which writes setuptools' .pth.
    t.exec(3, 1, '/usr/bin/python3', ['python3', '-m', 'venv', '.venv'])
      .exec(4, 3, `${WS}/.venv/bin/python3`, ['python3', '-m', 'ensurepip', '--default-pip'])
      .exec(5, 4, `${WS}/.venv/bin/python3`, ['python3', '-W', 'ignore', '-c', 'import runpy'])
      .open(5, `${WS}/.venv/lib/python3.11/site-packages/distutils-precedence.pth`, 'create')
      .exec(6, 1, `${WS}/.venv/bin/python3`, ['python3', '-m', 'pip', 'install', '-e', '.'])
      .open(6, `${WS}/.venv/lib/python3.11/site-packages/__editable__.pkg-1.0.pth`, 'create')
      .exec(7, 1, '/usr/bin/uv', ['uv', 'venv', '/tmp/venv'])
      .open(7, '/tmp/venv/lib/python3.12/site-packages/_virtualenv.pth', 'create');
    expect(ids(t)).toEqual([]);
  });

  it('git config init.templateDir in the workspace is a risky key', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/git', ['git', 'config', 'init.templateDir', '/tmp/t']).open(
      2,
      `${WS}/.git/config`,
      'write',
    );
    expect(ids(t)).toEqual(['persist-git-config']);
  });
});

describe('credential discovery', () => {
  const search = (argv: string[], cwd = WS, pipeline?: string[]) => {
    const t = new Trace();
    if (pipeline) t.exec(3, 1, `/usr/bin/${pipeline[0]}`, pipeline, { cwd });
    t.exec(2, 1, `/usr/bin/${argv[0]}`, argv, { cwd });
    return ids(t);
  };

  it('fires on the spellings of a credential search over / or HOME', () => {
    for (const argv of [
      ['find', '/', '-name', 'credentials', '-path', '*/.aws/*'],
      ['find', '/', '-iname', 'ID_ED25519'],
      ['find', '/', '-regex', '.*\\.pem$'],
      ['find', HOME, '-name', '.npmrc'],
      ['find', `${HOME}/`, '-name', '*.key'],
      ['find', '/home', '-name', '.pypirc'],
      ['find', `${HOME}/.config`, '-path', '*gcloud*'],
      ['grep', '-rl', 'BEGIN.*PRIVATE', HOME],
      ['grep', '-ril', 'password', '/etc'],
      ['rg', '-l', '--hidden', 'aws_access_key_id', '/'],
      ['fd', '-H', '-e', 'pem', '.', '/'],
      ['fd', '-H', 'hosts.yml', HOME, '--full-path', '-p', '.config/gh'],
      ['ls', '-la', `${HOME}/.ssh`],
      ['ls', '-R', `${HOME}/.aws`],
      ['tree', '-a', `${HOME}/.kube`],
      ['locate', 'kubeconfig'],
      ['plocate', '.docker/config.json'],
    ])
      expect(search(argv), argv.join(' ')).toEqual(['secrets-credential-search']);
  });

  it('fires on a search run from HOME or /, and at the end of a pipeline over a root', () => {
    expect(search(['rg', '--hidden', '-l', 'azure'], HOME)).toEqual([]);
    expect(search(['rg', '--hidden', '-l', '.azure'], HOME)).toEqual(['secrets-credential-search']);
    expect(search(['find', '.', '-name', 'id_rsa*'], '/')).toEqual(['secrets-credential-search']);
    expect(search(['grep', '-i', 'credentials'], WS, ['ls', '-laR', HOME])).toEqual([
      'secrets-credential-search',
    ]);
    expect(search(['grep', 'id_rsa'], WS, ['find', '/', '-type', 'f'])).toEqual([
      'secrets-credential-search',
    ]);
  });

  // Patterns as globs (globnames): they name a credential file without spelling its name.
  it('fires on patterns that name credential files, and on roots inside credential stores', () => {
    for (const argv of [
      ['find', '/', '-name', 'id_*', '-path', '*ssh*'],
      ['find', HOME, '-iname', '*cred*'],
      ['find', '/home', '-path', '*/.gnupg/*'],
      ['find', `${HOME}/.oci`, '-name', 'token'],
      ['find', `${HOME}/.config/gcloud`, '-name', 'access_tokens.db'],
      ['find', '/', '-name', 'wallet.*'],
      ['fd', '-H', '-g', '*.kdbx', '/'],
      ['grep', '-rl', '--include=*.p12', 'x', HOME],
    ])
      expect(search(argv), argv.join(' ')).toEqual(['secrets-credential-search']);
  });

  it('is quiet on patterns that name ordinary files as much as credentials', () => {
    for (const argv of [
      ['grep', 'github.com', `${HOME}/.ssh/known_hosts`],
      ['find', HOME, '-maxdepth', '3', '-name', '*.json'],
      ['find', HOME, '-maxdepth', '1', '-name', '.*'],
      ['find', '/', '-name', '*'],
      ['find', HOME, '-name', 'config'],
      ['find', '/usr', '-name', '*.so*'],
      ['find', HOME, '-name', '*.log', '-mtime', '-1'],
      ['find', `${HOME}/.config`, '-name', '*.ini'],
    ])
      expect(search(argv), argv.join(' ')).toEqual([]);
  });

  it('leaves a key search to secrets-key-search: one alert, not two', () => {
    expect(search(['find', '/', '-name', 'id_rsa'])).toEqual(['secrets-key-search']);
  });

  it('is quiet on searches of the workspace and on everyday discovery', () => {
    for (const [argv, cwd] of [
      [['find', '.', '-name', '*.py'], WS],
      [['find', '.', '-name', '*.pem'], WS],
      [['grep', '-rn', 'password', 'src'], WS],
      [['rg', '-l', 'secret'], WS],
      [['rg', '-l', 'secret', WS], WS],
      [['find', '/', '-name', 'python3', '-type', 'f'], WS],
      [['find', '/usr', '-name', 'libssl*'], WS],
      [['ls', '-la', HOME], WS],
      [['ls', '-R', '/'], WS],
      [['locate', 'libc.so'], WS],
      [['grep', '-r', 'TODO', HOME], WS],
      [[`${HOME}/.cache/agents/vendor/ripgrep/rg`, '--files-with-matches', 'api_key', WS], WS],
    ] as [string[], string][])
      expect(search(argv, cwd), argv.join(' ')).toEqual([]);
    expect(search(['grep', 'token'], WS, ['ls', '-la', 'src'])).toEqual([]);
  });
});

describe('setuid discovery, schedulers and services', () => {
  const run = (argv: string[], pipeline?: string[]) => {
    const t = new Trace();
    if (pipeline) t.exec(3, 1, `/usr/bin/${pipeline[0]}`, pipeline);
    t.exec(2, 1, `/usr/bin/${argv[0]}`, argv);
    return ids(t);
  };

  it('fires on searches for setuid or setgid programs', () => {
    for (const argv of [
      ['find', '/', '-perm', '-4000'],
      ['find', '/usr', '-perm', '/u=s', '-type', 'f'],
      ['find', '/', '-perm', '-g=s'],
      ['find', '/', '-perm', '/6000'],
      ['find', '/', '-perm', '-u+s,g+s'],
      ['find', '/usr/bin', '-perm', '-2000'],
    ])
      expect(run(argv), argv.join(' ')).toEqual(['exec-setid-search']);
    expect(run(['grep', 'rws'], ['ls', '-l', '/usr/bin'])).toEqual(['exec-setid-search']);
  });

  it('is quiet on -perm searches for executables or modes, and on grep in the workspace', () => {
    for (const argv of [
      ['find', '.', '-perm', '-u+x', '-type', 'f', '-links', '1', '-ls'],
      ['find', '.', '-perm', '644'],
      ['find', '.', '-perm', '/111'],
      ['grep', '-rn', 'rws', 'src'],
    ])
      expect(run(argv), argv.join(' ')).toEqual([]);
  });

  it('fires on schedulers and on service changes; listings and status are quiet', () => {
    for (const argv of [
      ['crontab', '/tmp/cron'],
      ['crontab', '-'],
      ['at', 'now', '+', '1', 'minute'],
      ['systemd-run', '--user', '--on-calendar', '*:0/5', 'sh', '-c', 'x'],
      ['systemctl', '--user', 'enable', '--now', 'updater.service'],
      ['systemctl', 'stop', 'auditd'],
      ['service', 'auditd', 'stop'],
      ['systemctl', '--user', 'daemon-reload'],
    ])
      expect(run(argv), argv.join(' ')).toEqual(['exec-scheduler-or-service']);
    for (const argv of [
      ['crontab', '-l'],
      ['systemctl', 'list-units', '--type=service', '--all'],
      ['systemctl', '--user', 'status'],
      ['systemctl', 'is-active', 'docker'],
      ['service', '--status-all'],
      ['systemctl', '--version'],
    ])
      expect(run(argv), argv.join(' ')).toEqual([]);
    const projectScript = new Trace();
    projectScript.exec(2, 1, `${WS}/bin/service`, ['bin/service', 'start']);
    expect(ids(projectScript)).toEqual([]);
  });
});

describe('ICMP channels, file attributes, inline decode-and-run', () => {
  it('an ICMP datagram socket fires except in ping', () => {
    const socket = (exe: string) => {
      const t = new Trace();
      t.exec(2, 1, exe, [exe.slice(exe.lastIndexOf('/') + 1)]).event(2, {
        kind: 'other',
        syscall: 'socket',
        flags: ['AF_INET', 'SOCK_DGRAM', 'IPPROTO_ICMP'],
        result: 3,
      });
      return ids(t);
    };
    expect(socket('/usr/bin/python3')).toEqual(['net-raw-socket']);
    expect(socket('/usr/bin/ping')).toEqual([]);
  });

  it('chattr changing immutable or append-only fires; other attributes and lsattr do not', () => {
    const run = (argv: string[]) => {
      const t = new Trace();
      t.exec(2, 1, `/usr/bin/${argv[0]}`, argv);
      return ids(t);
    };
    for (const argv of [
      ['chattr', '-i', '/etc/x'],
      ['chattr', '+a', 'log'],
      ['chattr', '-R', '=ia', 'd'],
    ])
      expect(run(argv), argv.join(' ')).toEqual(['evasion-file-attributes']);
    expect(run(['chattr', '-R', '+C', 'db'])).toEqual([]);
    expect(run(['lsattr', '-a', 'x'])).toEqual([]);
  });

  it('an inline program that decodes and starts a process fires', () => {
    const t = new Trace();
    const code = 'import base64,subprocess;subprocess.call(base64.b64decode("aWQ=").decode(),shell=True)';
    t.exec(2, 1, '/usr/bin/python3', ['python3', '-c', code]);
    expect(ids(t)).toEqual(['exec-decode-to-shell']);
  });
});

describe('everyday discovery that drops privileges', () => {
  const capset = (exe: string, syscall = 'capset', result = 0) => {
    const t = new Trace();
    t.exec(2, 1, exe, [exe.slice(exe.lastIndexOf('/') + 1), 'addr']).priv(2, syscall, result);
    return ids(t);
  };

  it("iproute2's capset at start is quiet; a copy the run wrote, or a setuid, is not", () => {
    expect(capset('/usr/bin/ip')).toEqual([]);
    expect(capset('/usr/bin/ip', 'setuid')).toEqual(['exec-setid-capset']);
    expect(capset('/usr/bin/ip', 'capset', -1)).toEqual(['exec-setid-capset']);
    const planted = new Trace();
    planted
      .exec(2, 1, '/usr/bin/cp', ['cp', '/usr/bin/python3', '/tmp/ip'])
      .open(2, '/tmp/ip', 'create')
      .exec(3, 1, '/tmp/ip', ['ip'])
      .priv(3, 'capset');
    expect(ids(planted)).toContain('exec-setid-capset');
  });
});

describe('kernel-module tools', () => {
  // The exe is what the tracer reports: the symlink's name today, kmod itself once resolved.
  const run = (exe: string, argv: string[], result = 0) => {
    const t = new Trace();
    t.exec(2, 1, exe, argv, { result });
    return ids(t);
  };

  it('fires on loading or removing modules, by name, through kmod or busybox', () => {
    for (const [exe, argv] of [
      ['/usr/sbin/insmod', ['insmod', 'evil.ko']],
      ['/usr/bin/kmod', ['insmod', 'evil.ko']],
      ['/usr/bin/kmod', ['/sbin/modprobe', 'evil']],
      ['/usr/bin/kmod', ['rmmod', 'nf_tables']],
      ['/usr/bin/kmod', ['kmod', 'insert', 'evil']],
      ['/usr/sbin/modprobe', ['modprobe', '-q', 'evil']],
      ['/usr/sbin/modprobe', ['modprobe', 'evil', '-n']],
      ['/usr/bin/busybox', ['busybox', 'modprobe', 'evil']],
      ['/usr/bin/busybox', ['insmod', '/tmp/evil.ko']],
      ['/usr/sbin/depmod', ['depmod', '-a']],
      [`${WS}/insmod`, ['./insmod', 'evil.ko']],
    ] as [string, string[]][])
      expect(run(exe, argv), `${exe} ${argv.join(' ')}`).toContain('exec-kernel-module-tool');
  });

  it('is quiet on read-only listings and print-only queries', () => {
    for (const [exe, argv] of [
      ['/usr/sbin/lsmod', ['lsmod']],
      ['/usr/bin/kmod', ['lsmod']],
      ['/usr/sbin/modinfo', ['modinfo', 'ext4']],
      ['/usr/bin/kmod', ['/usr/sbin/modinfo', 'ext4']],
      ['/usr/bin/kmod', ['kmod', 'list']],
      ['/usr/bin/kmod', ['kmod', 'static-nodes', '--format=tmpfiles']],
      ['/usr/bin/kmod', ['kmod']],
      ['/usr/sbin/modprobe', ['modprobe', '-n', 'fuse']],
      ['/usr/bin/kmod', ['modprobe', '--show-depends', 'fuse']],
      ['/usr/bin/busybox', ['busybox', 'lsmod']],
      ['/usr/bin/busybox', ['lsmod']],
    ] as [string, string[]][])
      expect(run(exe, argv), `${exe} ${argv.join(' ')}`).toEqual([]);
    expect(run('/usr/sbin/modprobe', ['modprobe', 'x'], -2)).toEqual([]);
  });

  it('the module syscalls fire whatever ran them', () => {
    for (const call of ['init_module', 'finit_module', 'delete_module']) {
      const t = new Trace();
      t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).priv(2, call, -1);
      expect(ids(t), call).toEqual(['exec-kernel-load']);
    }
  });
});

describe('hard links to protected files', () => {
  const link = (from: string, to: string, result = 0, syscall = 'linkat') => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/ln', ['ln', from, to]).meta(2, syscall, from, to, result);
    return ids(t);
  };

  it('a refused link of /etc/shadow, a key or a canary is flagged (EXDEV, EPERM)', () => {
    expect(link('/etc/shadow', '/tmp/shadow', -18)).toEqual(['integrity-protected-hardlink']);
    expect(link('/etc/shadow', `${WS}/s`, -1, 'link')).toEqual(['integrity-protected-hardlink']);
    expect(link(`${HOME}/.ssh/id_ed25519`, '/tmp/k', -18)).toEqual(['integrity-protected-hardlink']);
    expect(link(`${HOME}/.env`, '/tmp/e', -13)).toEqual(['integrity-protected-hardlink']);
  });

  it('a successful link of a secret is its secrets rule, once', () => {
    expect(link('/etc/shadow', '/tmp/shadow')).toEqual(['secrets-system-credentials-read']);
    expect(link(`${HOME}/.aws/credentials`, `${WS}/c`)).toEqual(['secrets-canary-read']);
  });

  it('a link to a protected file or a git hook, which a write through it would change, is flagged', () => {
    expect(link('/etc/passwd', `${WS}/p`)).toEqual(['integrity-protected-hardlink']);
    expect(link(`${HOME}/.bashrc`, `${WS}/notes.txt`)).toEqual(['integrity-protected-hardlink']);
    expect(link(`${WS}/.git/hooks/pre-commit`, `${WS}/scripts/lint.sh`)).toEqual([
      'integrity-protected-hardlink',
    ]);
  });

  it('is quiet on links of ordinary files, hook samples and links that found nothing', () => {
    expect(link(`${WS}/README.md`, `${WS}/README.link`)).toEqual([]);
    expect(link(`${WS}/.git/objects/ab/cdef`, `${WS}/clone/.git/objects/ab/cdef`)).toEqual([]);
    expect(link(`${WS}/.git/hooks/pre-commit.sample`, `${WS}/copy/.git/hooks/pre-commit.sample`)).toEqual([]);
    expect(link(`${HOME}/.ssh/id_rsa`, '/tmp/k', -2)).toEqual([]);
  });
});
