import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCli, ownStderr, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const runnable = isRoot && has('bpftrace') && has('strace') && has('bwrap') && has('curl') && has('python3');
if (!runnable)
  console.warn('network attribution e2e skipped: it needs root, bwrap, bpftrace, strace, curl and python3');

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Two programs fetch two disallowed hosts through the proxy at overlapping times: the Python helper
 * connects first and sends its request only after curl has connected and been answered, so "the
 * last process that connected to the proxy" is curl when Python's request is recorded.
 */
const WORKLOAD = [
  '/usr/bin/python3 -c "',
  'import http.client, os, time',
  "c = http.client.HTTPConnection('127.0.0.1', int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1]))",
  'c.connect()',
  'time.sleep(2)',
  "c.request('GET', 'http://py.evil.example/helper')",
  "print('py', c.getresponse().status)",
  '" &',
  'sleep 0.5',
  "/usr/bin/curl -s -o /dev/null -w 'curl %{http_code}\\n' http://curl.evil.example/tool",
  'wait',
  'touch done.txt',
].join('\n');

function task(): string {
  const dir = path.join(work, 'task');
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'two clients\n');
  writeFileSync(path.join(dir, 'workload.sh'), WORKLOAD);
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'name: two-clients',
      'task: {prompt: fetch}',
      'repo: repo',
      "test_command: [sh, -c, 'test -f done.txt']",
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'workload.sh'))}]`,
      'network: {mode: allowlist, allow: [api.allowed.test]}',
    ].join('\n'),
  );
  return config;
}

type Client = { pid: number | null; exe?: string; ns_pid?: number; reason?: string };
type Record = { host: string; decision: string; client?: Client };
type ProcRef = { pid: number; exe: string; argv: string[] };
type Alert = { rule: string; host?: string; process: ProcRef & { chain: ProcRef[] } };
type Event = { pid: number; kind: string; path?: string; argv?: string[]; result?: number };

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

describe.skipIf(!runnable)('each network record and alert names the process that made the request', () => {
  // bwrap: the bridge names each client; local: the loopback proxy reads the kernel's socket table.
  const cases = [
    { tracer: 'ebpf', sandbox: 'bwrap' },
    { tracer: 'strace', sandbox: 'bwrap' },
    { tracer: 'strace', sandbox: 'local' },
  ] as const;
  for (const { tracer, sandbox } of cases) {
    it(`under ${tracer} in ${sandbox}, with two clients at overlapping times`, {
      timeout: 120_000,
    }, async () => {
      const r = await execCli(
        ['run', task(), '--tracer', tracer, '--sandbox', sandbox, '--guard', 'audit', '--json'],
        { cwd: work },
      );
      // The local sandbox warns that it isolates nothing; nothing else may be printed.
      expect(
        ownStderr(r.stderr)
          .split('\n')
          .filter((l) => l !== '' && !l.includes('warning:')),
      ).toEqual([]);
      const report = JSON.parse(r.stdout);
      expect(report.observation.tracer.kind).toBe(tracer);
      expect(report.tests.passed).toBe(true);
      const evidence = path.join(report.run_dir, 'evidence');
      const records: Record[] = lines(path.join(evidence, 'network.jsonl'));
      const events: Event[] = lines(path.join(evidence, 'syscalls.jsonl'));
      const execOf = (pid: number | null | undefined) =>
        events.find((e) => e.pid === pid && e.kind === 'exec' && (e.result ?? 0) >= 0);

      const py = records.find((x) => x.host === 'py.evil.example');
      const curl = records.find((x) => x.host === 'curl.evil.example');
      expect(py?.decision).toBe('denied');
      expect(curl?.decision).toBe('denied');
      // The client's pid is the host pid the tracer recorded for that very program.
      expect(py?.client?.exe).toMatch(/\/python3/);
      expect(execOf(py?.client?.pid)?.path).toBe('/usr/bin/python3');
      expect(curl?.client?.exe).toBe('/usr/bin/curl');
      expect(execOf(curl?.client?.pid)?.path).toBe('/usr/bin/curl');
      if (sandbox === 'bwrap') expect(py?.client?.ns_pid).not.toBe(py?.client?.pid);

      const alerts: Alert[] = report.alerts.filter((a: Alert) => a.rule === 'net-proxy-not-allowed');
      const pyAlert = alerts.find((a) => a.host === 'py.evil.example');
      const curlAlert = alerts.find((a) => a.host === 'curl.evil.example');
      expect(pyAlert?.process.pid).toBe(py?.client?.pid);
      expect(pyAlert?.process.exe).toBe('/usr/bin/python3');
      expect(curlAlert?.process.pid).toBe(curl?.client?.pid);
      expect(curlAlert?.process.exe).toBe('/usr/bin/curl');
      // Both chains run up to the workload script, the agent's root.
      for (const alert of [pyAlert, curlAlert]) {
        const root = alert?.process.chain.at(-1);
        expect(root?.argv.at(-1)).toMatch(/workload\.sh$/);
      }
      // The live guard names the same processes as they happen.
      const incident = JSON.parse(readFileSync(path.join(report.run_dir, 'guard/incident.json'), 'utf8'));
      const live = (host: string) =>
        (incident.alerts as { alert: Alert }[]).find(
          (a) => a.alert.rule === 'net-proxy-not-allowed' && a.alert.host === host,
        )?.alert.process;
      expect(live('py.evil.example')?.pid).toBe(py?.client?.pid);
      expect(live('py.evil.example')?.exe).toMatch(/\/python3/);
      expect(live('curl.evil.example')?.pid).toBe(curl?.client?.pid);
      expect(live('curl.evil.example')?.exe).toBe('/usr/bin/curl');
    });
  }
});
