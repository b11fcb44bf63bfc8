import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, ROOT, scriptTask, tempDir } from './exec-cli.js';

// Spellings of the wall around the agent (issue 32) the first round did not list, each run for real
// under bwrap with both tracers: the attempt refused or harmless, recorded and alerted; its honest
// twin quiet.
const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canSandbox = isRoot && has('bwrap') && has('setpriv') && has('strace') && has('python3');
if (!canSandbox)
  console.warn(
    'wall-spellings e2e tests skipped: they need root, bwrap, setpriv, strace and python3 (CI has them)',
  );
const collectorBuilt = existsSync(path.join(ROOT, 'collector/build/agentguard-collector'));
if (!collectorBuilt)
  console.warn('wall-spellings e2e: the eBPF collector is not built; its runs are skipped');
const TRACERS = ['strace', ...(collectorBuilt ? ['ebpf'] : [])];
const hasBusybox = has('busybox');
if (!hasBusybox) console.warn('wall-spellings e2e: busybox is not installed; its case is skipped');

const work = tempDir('ag-wall-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Alert = { rule: string; message: string };
type Event = { kind: string; syscall: string; ids?: number[]; flags?: string[]; result?: number };

async function run(name: string, script: string, tracer: string) {
  const dir = scriptTask(work, `${name}-${tracer}`, script);
  const r = await execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', tracer, '--json'], {
    cwd: dir,
  });
  expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
  const report = JSON.parse(r.stdout);
  const events: Event[] = readFileSync(path.join(report.run_dir, 'evidence/syscalls.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const out = (file: string) => readFileSync(path.join(report.run_dir, 'repo', file), 'utf8').trim();
  return { report, events, out, rules: (report.alerts as Alert[]).map((a) => a.rule) };
}

// setresuid(0, 0, 0), setuid(0), setgid(0) and a capset raising every capability, by raw syscall.
const RAISE = `python3 -c "
import ctypes
l = ctypes.CDLL(None, use_errno=True)
print(l.syscall(117, 0, 0, 0), l.syscall(105, 0), l.syscall(106, 0))
hdr = (ctypes.c_uint32 * 2)(0x20080522, 0)
data = (ctypes.c_uint32 * 6)(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff)
print(l.syscall(126, hdr, data))
" > raise.txt 2>&1`;

// A Unix, an IPv4 and an IPv6 socket: what every runtime opens.
const SOCKETS = `python3 -c "
import socket
for family in (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6): socket.socket(family, socket.SOCK_STREAM).close()
print('ok')
" > sockets.txt 2>&1`;

// vsock is not confined by the network namespace: the hypervisor host (CID 2), other VMs, and any
// vsock listener of this machine (CID 1). Only the socket is made: nothing is connected to.
const VSOCK = `python3 -c "
import socket
try:
    socket.socket(40, socket.SOCK_STREAM); print('created')
except OSError as e:
    print('refused', e.errno)
" > vsock.txt 2>&1
python3 -c "
import ctypes
l = ctypes.CDLL(None, use_errno=True)
print(l.syscall(323, 1), ctypes.get_errno())
" > userfaultfd.txt 2>&1`;

describe.skipIf(!canSandbox)('a socket no network namespace confines (AF_VSOCK)', () => {
  for (const tracer of TRACERS) {
    it(`under ${tracer}: is refused, recorded and alerted`, async () => {
      const r = await run('vsock', VSOCK, tracer);
      const socket = r.events.find((e) => e.syscall === 'socket' && e.flags?.includes('AF_VSOCK'));
      expect(socket, 'the vsock socket is recorded').toBeDefined();
      // The filter refuses it by its argument under both tracers (strace follows with syscall stops).
      expect(r.out('vsock.txt')).toBe('refused 38');
      expect(socket?.result).toBe(-38);
      expect(r.rules).toContain('net-unconfined-socket');
      // userfaultfd, even its user-mode-only kind, is refused as Docker's profile does, and alerted.
      expect(r.out('userfaultfd.txt')).toBe('-1 38');
      expect(r.events.some((e) => e.syscall === 'userfaultfd' && (e.result ?? 0) < 0)).toBe(true);
      expect(r.rules).toContain('exec-userfaultfd');
    }, 240_000);
  }
});

// A new user namespace by clone (its flags in a register the filter reads), an execution domain
// that weakens memory protections, a host-wide call and an open by file handle (the handle made by
// name_to_handle_at, which needs no privilege) and a new user namespace by clone3 (refused whatever
// its flags, which sit in memory), each by raw syscall; then a sibling's memory read
// with process_vm_readv, which the kernel allows within the run's own user.
const ARGUMENT_REFUSALS = `python3 -c "
import ctypes, os, struct, time
l = ctypes.CDLL(None, use_errno=True)
for args in ((56, 0x10000000 | 17, 0, 0, 0, 0), (135, 0x0400000), (135, 0x0040000), (169, 0, 0, 0, 0)):
    r = l.syscall(*args); print(r, ctypes.get_errno())
L = ctypes.c_long
handle, mount = ctypes.create_string_buffer(struct.pack('Ii', 128, 0) + bytes(128)), ctypes.c_int()
l.syscall(L(303), L(-100), b'README.md', handle, ctypes.byref(mount), L(0))
print(l.syscall(L(304), L(-100), handle, L(0)), ctypes.get_errno())
clone_args = ctypes.create_string_buffer(struct.pack('8Q', 0x10000000, 0, 0, 0, 17, 0, 0, 0))
print(l.syscall(L(435), clone_args, L(64)), ctypes.get_errno())
secret = ctypes.create_string_buffer(b'sibling')
sibling = os.fork()
if sibling == 0: time.sleep(60); os._exit(0)
got = ctypes.create_string_buffer(8)
local, remote = (struct.pack('QQ', ctypes.addressof(b), 7) for b in (got, secret))
print(l.syscall(L(310), L(sibling), local, L(1), remote, L(1), L(0)), got.value.decode())
os.kill(sibling, 9); os.waitpid(sibling, 0)
" > refused.txt 2>&1`;

// What honest programs do with the same calls: fork (clone without CLONE_NEW*), the personality
// query and PER_LINUX, a process_vm_readv of the caller's own memory (a runtime probing an address),
// and a thread (glibc tries clone3 first, refused, then clone).
const ARGUMENT_TWINS = `python3 -c "
import ctypes, os, struct, threading
l = ctypes.CDLL(None, use_errno=True)
pid = os.fork()
if pid == 0: os._exit(0)
os.waitpid(pid, 0)
thread = threading.Thread(target=lambda: None); thread.start(); thread.join()
mine, got = ctypes.create_string_buffer(b'own'), ctypes.create_string_buffer(4)
local, remote = (struct.pack('QQ', ctypes.addressof(b), 3) for b in (got, mine))
L = ctypes.c_long
print(l.syscall(135, 0xffffffff), l.syscall(135, 0), l.syscall(L(310), L(os.getpid()), local, L(1), remote, L(1), L(0)))
" > twins.txt 2>&1`;

describe.skipIf(!canSandbox)('calls refused by their argument: a namespace clone, a personality', () => {
  for (const tracer of TRACERS) {
    it(`under ${tracer}: refused, recorded and alerted; their honest twins quiet`, async () => {
      const r = await run('by-argument', ARGUMENT_REFUSALS, tracer);
      expect(r.out('refused.txt')).toBe('-1 38\n-1 38\n-1 38\n-1 38\n-1 38\n-1 38\n7 sibling');
      const refused = (call: string) => r.events.filter((e) => e.syscall === call && e.result === -38);
      expect(refused('clone').length, 'the namespace clone').toBeGreaterThan(0);
      expect(refused('personality').length, 'the personalities').toBeGreaterThan(0);
      expect(refused('reboot').length, 'reboot').toBeGreaterThan(0);
      if (tracer === 'strace') {
        expect(refused('clone')[0]?.flags).toEqual(['CLONE_NEWUSER']);
        expect(refused('personality').map((e) => e.flags)).toEqual([
          ['READ_IMPLIES_EXEC'],
          ['ADDR_NO_RANDOMIZE'],
        ]);
      }
      // The collector reads clone3's flags from its clone_args, as strace decodes them.
      expect(refused('clone3').map((e) => e.flags?.[0]?.slice(0, 9))).toContain('CLONE_NEW');
      // The handle open is a host-wide call under both tracers (strace once drafted it as an open).
      expect(refused('open_by_handle_at').map((e) => e.kind)).toContain('privilege');
      const alerts = r.report.alerts as Alert[];
      const hostCalls = alerts.filter((a) => a.rule === 'exec-host-call').map((a) => a.message);
      expect(
        hostCalls.some((m) => m.includes('open_by_handle_at')),
        hostCalls.join('\n'),
      ).toBe(true);
      const memory = alerts.filter((a) => a.rule === 'secrets-process-memory-call').map((a) => a.message);
      expect(
        memory.some((m) => m.includes('process_vm_readv')),
        memory.join('\n'),
      ).toBe(true);
      for (const rule of ['exec-namespace-change', 'evasion-personality', 'exec-host-call'])
        expect(r.rules).toContain(rule);

      const quiet = await run('by-argument-twins', ARGUMENT_TWINS, tracer);
      expect(quiet.out('twins.txt')).toBe('0 0 3');
      const namespaceCalls = quiet.events.filter((e) => e.flags?.some((f) => f.startsWith('CLONE_NEW')));
      expect(namespaceCalls, JSON.stringify(namespaceCalls)).toEqual([]);
      const twinRules = ['exec-namespace-change', 'evasion-personality', 'exec-host-call'];
      for (const rule of [...twinRules, 'secrets-process-memory-call'])
        expect(quiet.rules).not.toContain(rule);
    }, 240_000);
  }
});

// Signals and pidfds aimed at the sandbox's init (pid 1, bwrap, root) and past it: refused for want
// of the same user. kill -0 only asks whether it may.
const SIGNALS = `kill -0 1 2>/dev/null; echo $? > kill0.rc
kill -TERM 1 2>/dev/null; echo $? > term.rc
python3 -c "
import ctypes
l = ctypes.CDLL(None, use_errno=True)
print(l.syscall(234, 1, 1, 10), ctypes.get_errno())
fd = l.syscall(434, 1, 0)
print(l.syscall(424, fd, 10, None, 0), ctypes.get_errno())
print(l.syscall(438, fd, 0, 0), ctypes.get_errno())
" > pidfd.txt 2>&1`;

// Its own children, signalled and waited for; a pid that is gone.
const OWN_SIGNALS = `sleep 5 & kill $! && wait $! 2>/dev/null; timeout 1 sleep 3; kill -0 99999 2>/dev/null; echo own > own.txt`;

describe.skipIf(!canSandbox)('a signal or pidfd aimed past the run', () => {
  for (const tracer of TRACERS) {
    it(`under ${tracer}: refused, recorded and alerted; the run's own signals quiet`, async () => {
      const r = await run('signals', SIGNALS, tracer);
      expect(r.out('kill0.rc')).not.toBe('0');
      expect(r.out('term.rc')).not.toBe('0');
      // tgkill, pidfd_send_signal and pidfd_getfd on init: EPERM each.
      expect(r.out('pidfd.txt')).toMatch(/^-1 1\n-1 1\n-1 1$/);
      const refused = (call: string) =>
        r.events.some((e) => e.kind === 'privilege' && e.syscall === call && e.result === -1);
      for (const call of ['kill', 'tgkill', 'pidfd_send_signal', 'pidfd_getfd'])
        expect(refused(call), call).toBe(true);
      expect(r.events.some((e) => e.syscall === 'pidfd_open' && (e.result ?? -1) >= 0)).toBe(true);
      expect(r.rules).toContain('exec-signal-outside-run');
    }, 240_000);
  }
});

describe.skipIf(!canSandbox)('setid calls: a drop to the ids a process holds is not a change', () => {
  for (const tracer of TRACERS) {
    it.skipIf(!hasBusybox)(
      `under ${tracer}: busybox applets are quiet, a raise to root is refused and alerted`,
      async () => {
        // Debian's busybox, like Alpine's, calls setgid(getgid()) and setuid(getuid()) at every start.
        const quiet = await run(
          'busybox',
          `busybox ls > ls.txt\nbusybox cat README.md > cat.txt\n${SOCKETS}\n${OWN_SIGNALS}`,
          tracer,
        );
        expect(quiet.out('cat.txt')).toBe('task');
        const drops = quiet.events.filter((e) => e.kind === 'privilege' && /^set[ug]id$/.test(e.syscall));
        expect(drops.length).toBeGreaterThanOrEqual(2);
        expect(drops.every((e) => (e.result ?? 0) === 0)).toBe(true);
        if (tracer === 'strace') {
          const uid = Number(quiet.report.observation.sandbox.facts.run_user.split(':')[0]);
          expect(drops.every((e) => e.ids?.[0] === uid)).toBe(true);
        }
        expect(quiet.rules).not.toContain('exec-setid-capset');
        // The honest twins of the signal and vsock cases: the run's own signals and sockets.
        expect(quiet.out('own.txt')).toBe('own');
        expect(quiet.events.some((e) => e.syscall === 'kill' && e.result === 0)).toBe(true);
        expect(quiet.rules).not.toContain('exec-signal-outside-run');
        expect(quiet.out('sockets.txt')).toBe('ok');
        expect(quiet.rules).not.toContain('net-unconfined-socket');

        const attack = await run('raise', RAISE, tracer);
        expect(attack.out('raise.txt')).toMatch(/^-1 -1 -1\n-1$/);
        const tried = attack.events.filter(
          (e) => e.kind === 'privilege' && ['setresuid', 'setuid', 'setgid', 'capset'].includes(e.syscall),
        );
        expect(new Set(tried.map((e) => e.syscall))).toEqual(
          new Set(['setresuid', 'setuid', 'setgid', 'capset']),
        );
        if (tracer === 'strace') expect(tried.find((e) => e.syscall === 'setresuid')?.ids).toEqual([0, 0, 0]);
        expect(attack.rules).toContain('exec-setid-capset');
      },
      240_000,
    );
  }
});
