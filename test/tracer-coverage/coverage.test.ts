import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SysEvent } from '../../src/evidence/types.js';
import type { RunReport } from '../../src/reports/types.js';
import { execCli, ROOT, tempDir } from '../e2e/exec-cli.js';

/**
 * docs/coverage.md, proved: every row of its table is done by a real program under each tracer,
 * with `--sandbox local` (nothing prevents any of them there), and the cell the table states is
 * what the evidence shows. The C programs are built with `cc -static` into a temp folder.
 */
const DIR = path.dirname(fileURLToPath(import.meta.url));
const PROGRAMS = ['compat-calls', 'io-uring-ops', 'legacy-open', 'memfd-exec'];
type Cell = 'recorded' | 'mechanism alert only' | 'final state' | 'not seen';
type Tracer = 'ebpf' | 'strace';

/** The table of docs/coverage.md: mechanism → tracer → cell. */
function documentedCells(): Map<string, Record<Tracer, Cell>> {
  const doc = readFileSync(path.join(ROOT, 'docs/coverage.md'), 'utf8');
  const rows = new Map<string, Record<Tracer, Cell>>();
  for (const line of doc.split('\n')) {
    const m = /^\|\s*`([^`]+)`\s*\|[^|]*\|\s*([a-z ]+?)\s*\|\s*([a-z ]+?)\s*\|$/.exec(line);
    if (m) rows.set(m[1] as string, { ebpf: m[2] as Cell, strace: m[3] as Cell });
  }
  return rows;
}

type Evidence = { events: SysEvent[]; report: RunReport };
type Row = {
  /** Shell lines run by the agent in the workspace; `$B` is the folder of the built programs. */
  steps: string[];
  recorded: (e: Evidence) => boolean;
  /** The evasion rule fired for this row's process without the row being recorded. */
  mechanism: (e: Evidence) => boolean;
  /** The rule of the file the row changes fired from the final state (no call placed the change). */
  finalState?: (e: Evidence) => boolean;
};

const pidsRunning = (e: Evidence, argvItem: string) =>
  new Set(e.events.filter((x) => x.kind === 'exec' && x.argv?.includes(argvItem)).map((x) => x.pid));
const evasionFor = (e: Evidence, pids: Set<number>, rule: string) =>
  e.report.alerts.some((a) => a.rule === rule && pids.has(a.process.pid));
const opened = (e: Evidence, file: string, syscall: (s: string) => boolean) =>
  e.events.some((x) => x.kind === 'open' && x.path?.endsWith(`/${file}`) && syscall(x.syscall));
const connected = (e: Evidence, port: number, syscall: (s: string) => boolean) =>
  e.events.some((x) => x.kind === 'connect' && x.addr?.port === port && syscall(x.syscall));
const canaryAlert = (e: Evidence, suffix: string) =>
  e.report.alerts.some((a) => a.rule === 'secrets-canary-read' && a.path?.endsWith(suffix));
const canaryThrough = (e: Evidence, suffix: string, written: string) =>
  e.report.alerts.some(
    (a) =>
      a.rule === 'secrets-canary-read' && a.path?.endsWith(suffix) && a.path_as_written?.endsWith(written),
  );
/** The rule fired at `suffix`: by a call the trace placed there, or from the final state. */
const ruleAt = (e: Evidence, rule: string, suffix: string, from: 'trace' | 'final state', written?: string) =>
  e.report.alerts.some(
    (a) =>
      a.rule === rule &&
      a.path?.endsWith(suffix) === true &&
      (a.syscall === 'final-state') === (from === 'final state') &&
      (written === undefined || a.path_as_written?.endsWith(written) === true),
  );
const DEEP = `/tmp/ag-cov-deep/${Array.from({ length: 250 }, () => 'd').join('/')}`;
const never = () => false;
const is = (name: string) => (s: string) => s === name;
const ia32 = (s: string) => s.startsWith('ia32:');

const PY = (code: string) => `python3 -c "${code}"`;
const ROWS: Record<string, Row> = {
  openat: {
    steps: ['cat cov-openat.txt > /dev/null'],
    recorded: (e) => opened(e, 'cov-openat.txt', is('openat')),
    mechanism: never,
  },
  open: {
    steps: ['"$B/legacy-open" open cov-open.txt'],
    recorded: (e) => opened(e, 'cov-open.txt', is('open')),
    mechanism: never,
  },
  creat: {
    steps: ['"$B/legacy-open" creat cov-creat.txt'],
    recorded: (e) => opened(e, 'cov-creat.txt', is('creat')),
    mechanism: never,
  },
  openat2: {
    steps: ['"$B/legacy-open" openat2 cov-openat2.txt'],
    recorded: (e) => opened(e, 'cov-openat2.txt', is('openat2')),
    mechanism: never,
  },
  'i386-open': {
    steps: ['"$B/compat-calls" open cov-i386.txt > /dev/null'],
    recorded: (e) => opened(e, 'cov-i386.txt', ia32),
    mechanism: (e) => evasionFor(e, pidsRunning(e, 'cov-i386.txt'), 'evasion-compat-syscall'),
  },
  'i386-read': {
    steps: [],
    recorded: never,
    mechanism: (e) => {
      const pids = pidsRunning(e, 'cov-i386.txt');
      return (
        e.events.some((x) => pids.has(x.pid) && x.syscall === 'ia32:read') &&
        evasionFor(e, pids, 'evasion-compat-syscall')
      );
    },
  },
  'i386-connect': {
    steps: ['"$B/compat-calls" connect 7'],
    recorded: (e) => connected(e, 7, ia32),
    mechanism: (e) => evasionFor(e, pidsRunning(e, '7'), 'evasion-compat-syscall'),
  },
  'io_uring-openat': {
    steps: ['"$B/io-uring-ops" read cov-uring.txt > /dev/null'],
    recorded: (e) => opened(e, 'cov-uring.txt', (s) => s.startsWith('io_uring:')),
    mechanism: (e) => evasionFor(e, pidsRunning(e, 'cov-uring.txt'), 'evasion-io-uring'),
  },
  'io_uring-read': {
    steps: [],
    // What a ring read is never known: only that the ring ran (ebpf: io_uring:READ).
    recorded: never,
    mechanism: (e) => evasionFor(e, pidsRunning(e, 'cov-uring.txt'), 'evasion-io-uring'),
  },
  'io_uring-connect': {
    steps: ['"$B/io-uring-ops" connect 13'],
    recorded: (e) => connected(e, 13, () => true),
    mechanism: (e) => evasionFor(e, pidsRunning(e, '13'), 'evasion-io-uring'),
  },
  execve: {
    steps: ['/usr/bin/true cov-execve'],
    recorded: (e) =>
      e.events.some((x) => x.kind === 'exec' && x.path === '/usr/bin/true' && x.argv?.[1] === 'cov-execve'),
    mechanism: never,
  },
  'execveat-memfd': {
    steps: ['"$B/memfd-exec" /usr/bin/true cov-memfd'],
    recorded: (e) =>
      e.events.some((x) => x.kind === 'exec' && x.path === 'memfd:payload' && x.argv?.includes('cov-memfd')),
    mechanism: (e) =>
      e.report.alerts.some((a) => a.rule === 'exec-memfd' && a.process.argv.includes('cov-memfd')),
  },
  'proc-fd-exec': {
    steps: [
      PY(
        "import os; fd = os.memfd_create('py'); os.write(fd, open('/usr/bin/true', 'rb').read()); os.execv('/proc/self/fd/%d' % fd, ['cov-procfd'])",
      ),
    ],
    recorded: (e) =>
      e.events.some((x) => x.kind === 'exec' && x.path === 'memfd:py' && x.argv?.[0] === 'cov-procfd'),
    mechanism: (e) =>
      e.report.alerts.some((a) => a.rule === 'exec-memfd' && a.process.argv[0] === 'cov-procfd'),
  },
  connect: {
    steps: [
      PY(
        "import socket; s = socket.socket(); s.settimeout(1)\ntry: s.connect(('127.0.0.1', 9))\nexcept OSError: pass",
      ),
    ],
    recorded: (e) => connected(e, 9, is('connect')),
    mechanism: never,
  },
  sendto: {
    steps: [
      PY("import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', 19))"),
    ],
    recorded: (e) => connected(e, 19, is('sendto')),
    mechanism: never,
  },
  bind: {
    steps: [
      PY("import socket; socket.socket().bind(('127.0.0.1', 0)); socket.socket().bind(('127.0.0.1', 18765))"),
    ],
    recorded: (e) => e.events.some((x) => x.syscall === 'bind' && x.addr?.port === 18765),
    mechanism: never,
  },
  'proc-root-alias': {
    steps: ['head -c 1 "/proc/self/root$HOME/.ssh/id_rsa" > /dev/null'],
    recorded: (e) => canaryAlert(e, '/.ssh/id_rsa'),
    mechanism: never,
  },
  'proc-cwd-alias': {
    steps: ['(cd "$HOME/.aws" && head -c 1 /proc/self/cwd/credentials > /dev/null)'],
    recorded: (e) => canaryAlert(e, '/.aws/credentials'),
    mechanism: never,
  },
  'proc-fd-dir': {
    steps: ['exec 3<"$HOME/.ssh"', 'head -c 1 /proc/self/fd/3/id_rsa > /dev/null', 'exec 3<&-'],
    recorded: (e) => canaryThrough(e, '/.ssh/id_rsa', '/proc/self/fd/3/id_rsa'),
    mechanism: never,
  },
  'dev-fd-dir': {
    steps: ['exec 4<"$HOME/.aws"', 'head -c 1 /dev/fd/4/credentials > /dev/null', 'exec 4<&-'],
    recorded: (e) => canaryThrough(e, '/.aws/credentials', '/dev/fd/4/credentials'),
    mechanism: never,
  },
  'proc-pid-cwd': {
    steps: [`(cd "$HOME" && sh -c 'head -c 1 /proc/$$/cwd/.env > /dev/null')`],
    recorded: (e) => canaryThrough(e, '/.env', '/cwd/.env'),
    mechanism: never,
  },
  'symlink-dotdot': {
    steps: [
      'mkdir -p "$HOME/.cache/a/b"',
      'ln -sfn "$HOME/.cache/a/b" /tmp/ag-cov-link',
      'head -c 1 /tmp/ag-cov-link/../../../.npmrc > /dev/null',
    ],
    recorded: (e) => canaryThrough(e, '/.npmrc', '/tmp/ag-cov-link/../../../.npmrc'),
    mechanism: never,
  },
  'hard-link': {
    steps: ['ln -f "$HOME/.ssh/id_rsa" "$HOME/.cache/k"', 'head -c 1 "$HOME/.cache/k" > /dev/null'],
    // The read through the link: by the canary's inode (ebpf), by the link call the trace saw made (strace).
    recorded: (e) => canaryThrough(e, '/.ssh/id_rsa', '/.cache/k'),
    mechanism: (e) =>
      e.report.alerts.some((a) => a.rule === 'secrets-canary-read' && a.syscall.startsWith('link')),
  },
  'fd-dir-exec': {
    steps: [
      'mkdir -p dl && printf "#!/bin/sh\\ntrue\\n" > dl/cov-run.sh && chmod +x dl/cov-run.sh',
      'exec 5<dl',
      '/proc/self/fd/5/cov-run.sh',
      'exec 5<&-',
    ],
    recorded: (e) =>
      e.events.some(
        (x) =>
          x.kind === 'exec' &&
          x.path?.endsWith('/dl/cov-run.sh') &&
          x.path_as_written === '/proc/self/fd/5/cov-run.sh',
      ),
    mechanism: (e) => e.report.alerts.some((a) => a.rule === 'evasion-descriptor-path'),
  },
  'fcntl-dupfd': {
    // The folder's only descriptor is fcntl's copy: a change through it resolves only if the
    // tracer's descriptor table followed F_DUPFD_CLOEXEC.
    steps: [
      'mkdir -p cov-dup && touch cov-dup/target',
      `python3 -c "import os, fcntl; d = os.open('cov-dup', os.O_RDONLY); n = fcntl.fcntl(d, fcntl.F_DUPFD_CLOEXEC, 40); os.close(d); os.chmod('/proc/self/fd/%d/target' % n, 0o600)"`,
    ],
    recorded: (e) =>
      e.events.some(
        (x) =>
          x.syscall === 'chmod' &&
          x.path?.endsWith('/cov-dup/target') === true &&
          x.path_as_written === '/proc/self/fd/40/target',
      ),
    mechanism: (e) => e.report.alerts.some((a) => a.rule === 'evasion-descriptor-path'),
  },
  'io_uring-write-hook': {
    steps: [`"$B/io-uring-ops" write .git/hooks/post-rewrite '#!/bin/sh'`],
    recorded: (e) => ruleAt(e, 'persist-git-hook', '/.git/hooks/post-rewrite', 'trace'),
    mechanism: never,
    finalState: (e) => ruleAt(e, 'persist-git-hook', '/.git/hooks/post-rewrite', 'final state'),
  },
  'hard-link-protected': {
    // .git/config by a second name made earlier: the inode (ebpf), the link call (strace).
    steps: ['ln .git/config cov-gc', "printf '# cov\\n' >> cov-gc"],
    recorded: (e) => ruleAt(e, 'persist-git-config', '/.git/config', 'trace', '/cov-gc'),
    mechanism: never,
    finalState: (e) => ruleAt(e, 'persist-git-config', '/.git/config', 'final state'),
  },
  'scm-rights-dirfd': {
    // The hooks folder's descriptor comes from another process over a Unix socket, then a rename into it.
    steps: [
      "printf '#!/bin/sh\\n' > cov-hook",
      PY(
        "import os, socket, array; a, b = socket.socketpair(); d = os.open('.git/hooks', os.O_RDONLY); a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [d]))]); os.close(d); m, anc, f, ad = b.recvmsg(1, socket.CMSG_LEN(4)); fd = array.array('i', anc[0][2][:4])[0]; os.rename('cov-hook', 'pre-push', dst_dir_fd=fd)",
      ),
    ],
    recorded: (e) => ruleAt(e, 'persist-git-hook', '/.git/hooks/pre-push', 'trace'),
    mechanism: never,
    finalState: (e) => ruleAt(e, 'persist-git-hook', '/.git/hooks/pre-push', 'final state'),
  },
  'exec-env': {
    // The library need not exist: the loader says so and runs the program all the same.
    steps: ['LD_PRELOAD=/tmp/cov-preload.so NODE_OPTIONS="-r ./cov.js" /bin/true 2>/dev/null'],
    recorded: (e) =>
      e.events.some(
        (x) =>
          x.kind === 'exec' &&
          x.env?.includes('LD_PRELOAD=/tmp/cov-preload.so') === true &&
          x.env.includes('NODE_OPTIONS=-r ./cov.js'),
      ),
    mechanism: never,
  },
  'deep-path': {
    // Made by absolute paths: no walk has seen its folders, so reading it walks all 251 levels.
    steps: [
      `python3 -c "import os; os.makedirs('${DEEP}', exist_ok=True)"`,
      `(cd ${DEEP} && echo x > cov-deep.txt && cat cov-deep.txt > /dev/null)`,
    ],
    recorded: (e) =>
      opened(e, 'cov-deep.txt', is('openat')) && e.events.some((x) => x.path === `${DEEP}/cov-deep.txt`),
    mechanism: (e) => e.report.alerts.some((a) => a.rule === 'evasion-truncated-path'),
  },
};

function cellOf(row: Row, e: Evidence): Cell {
  if (row.recorded(e)) return 'recorded';
  if (row.mechanism(e)) return 'mechanism alert only';
  return row.finalState?.(e) ? 'final state' : 'not seen';
}

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missingTools = ['cc', 'strace', 'bpftrace', 'python3'].filter((t) => !has(t));
const unsupported =
  process.arch !== 'x64'
    ? 'the 32-bit rows need x86_64'
    : process.getuid?.() !== 0
      ? 'the tracers need root'
      : missingTools.length > 0
        ? `they need ${missingTools.join(', ')}`
        : null;
if (unsupported) console.warn(`coverage tests skipped: ${unsupported} (CI runs them as root)`);

const work = tempDir('ag-coverage-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function build(): string {
  const bin = path.join(work, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const name of PROGRAMS) {
    const r = spawnSync(
      'cc',
      ['-static', '-no-pie', '-O1', '-o', path.join(bin, name), path.join(DIR, 'programs', `${name}.c`)],
      {
        encoding: 'utf8',
      },
    );
    if (r.status !== 0) throw new Error(`cc ${name}.c failed: ${r.stderr}`);
  }
  return bin;
}

async function runUnder(tracer: Tracer, bin: string): Promise<Evidence> {
  const dir = path.join(work, tracer);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  for (const f of ['cov-openat', 'cov-open', 'cov-openat2', 'cov-i386', 'cov-uring'])
    writeFileSync(path.join(dir, 'repo', `${f}.txt`), `${f}\n`);
  const steps = Object.values(ROWS).flatMap((r) => r.steps);
  writeFileSync(path.join(dir, 'steps.sh'), `B=${JSON.stringify(bin)}\n${steps.join('\n')}\n`);
  writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      `name: coverage-${tracer}`,
      'task: {prompt: run every door of docs/coverage.md}',
      'repo: repo',
      'test_command: [sh, -c, "true"]',
      `agent_command: [sh, -c, '. "$0/steps.sh"', '{config_dir}']`,
    ].join('\n'),
  );
  const r = await execCli(
    ['run', path.join(dir, 'config.yaml'), '--tracer', tracer, '--sandbox', 'local', '--json'],
    {
      cwd: dir,
    },
  );
  const report = JSON.parse(r.stdout) as RunReport;
  expect(report.observation.tracer.kind).toBe(tracer);
  const runs = path.join(dir, '.agentguard/runs');
  const [run] = readdirSync(runs);
  const events = readFileSync(path.join(runs, run as string, 'evidence/syscalls.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SysEvent);
  return { events, report };
}

describe('docs/coverage.md', () => {
  it('has a test row for every table row, and the other way round', () => {
    expect([...documentedCells().keys()].sort()).toEqual(Object.keys(ROWS).sort());
  });
});

describe.skipIf(unsupported !== null)('every door of docs/coverage.md, run for real', () => {
  const evidence = new Map<Tracer, Evidence>();
  beforeAll(async () => {
    const bin = build();
    for (const tracer of ['ebpf', 'strace'] as const) evidence.set(tracer, await runUnder(tracer, bin));
  }, 240_000);

  const cells = documentedCells();
  for (const [name, row] of Object.entries(ROWS)) {
    for (const tracer of ['ebpf', 'strace'] as const) {
      const want = cells.get(name)?.[tracer];
      it(`${name} under ${tracer}: ${want}`, () => {
        expect(cellOf(row, evidence.get(tracer) as Evidence)).toBe(want);
      });
    }
  }
});
