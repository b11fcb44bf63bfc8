import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/reports/types.js';
import { execCli, scriptTask, tempDir } from './exec-cli.js';

/**
 * Issue 33: downloaded code run by a route no exec names, and a download copied before it runs.
 * Provenance follows the bytes (a file written by a process that fetched, or that read a
 * download, is a download); a shell or interpreter that takes one as its program runs it. Each
 * spelling runs for real under the collector and under strace; the honest twin feeds the agent's
 * own scripts to the same routes and reads the download as data, and stays quiet.
 */
const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = ['bwrap', 'strace', 'python3', 'node', 'zip', 'unzip', 'jq'].filter((t) => !has(t));
const skip = !isRoot ? 'they need root' : missing.length > 0 ? `they need ${missing.join(', ')}` : null;
if (skip) console.warn(`downloaded-code e2e tests skipped: ${skip} (CI runs them as root)`);

const work = tempDir('ag-dlcode-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The download: a process that connected (the allowed host answers nothing) writes the files.
const DOWNLOAD = (files: string) => `mkdir -p dl
python3 -c "
import io, tarfile, urllib.request, zipfile
try: urllib.request.urlopen('http://api.allowed.test/x', timeout=3)
except Exception: pass
${files}
"`;

const HOSTILE = `${DOWNLOAD(`body = b'echo ran > /dev/null\\n'
open('dl/run.sh', 'wb').write(body)
open('dl/x.py', 'w').write('print(1)\\n')
open('dl/x.js', 'w').write('console.log(1)\\n')
open('dl/x.b64', 'w').write('ZWNobyBiNjQgPiAvZGV2L251bGwK\\n')
with tarfile.open('dl/b.tgz', 'w:gz') as t:
    info = tarfile.TarInfo('run.sh'); info.size = len(body); t.addfile(info, io.BytesIO(body))
with zipfile.ZipFile('dl/z.zip', 'w') as z: z.writestr('run.sh', body)`)}
. dl/run.sh
sh < dl/run.sh
python3 - < dl/x.py
node < dl/x.js
bash -s < dl/run.sh
env sh < dl/run.sh
timeout 5 sh < dl/run.sh
cat dl/run.sh | bash
( . dl/run.sh; true )
bash -c 'source dl/run.sh'
cp dl/run.sh c1.sh && sh c1.sh
cat dl/run.sh > c2.sh && sh c2.sh
install -m 755 dl/run.sh c3.sh && ./c3.sh
dd if=dl/run.sh of=c4.sh 2>/dev/null && sh c4.sh
mkdir -p t6 && tar xzf dl/b.tgz -C t6 && sh t6/run.sh
unzip -q -o dl/z.zip -d t7 && sh t7/run.sh
cp dl/run.sh /tmp/c8.sh && mv /tmp/c8.sh ./c8.sh && sh c8.sh
python3 -c "open('c9.sh', 'w').write(open('dl/run.sh').read())" && sh < c9.sh
bash -c "$(cat dl/run.sh)"
node -e "$(cat dl/x.js)"
bash -c 'python3 -c "$(<dl/x.py)"'
sh -c "$(base64 -d dl/x.b64)"
timeout 5 sh -c "$(cat dl/run.sh)"
xargs -0 sh -c < dl/run.sh
echo 'exec < dl/run.sh' | sh
`;

const HONEST = `${DOWNLOAD(`open('dl/data.json', 'w').write('{"a": 1}\\n')`)}
printf 'echo ok > /dev/null\\n' > own.sh
. ./own.sh
sh < own.sh
timeout 5 sh < own.sh
bash -c 'source ./own.sh'
cat own.sh | sh
cp own.sh own2.sh && sh own2.sh
python3 -c 'import json,sys; json.load(sys.stdin)' < dl/data.json
jq . < dl/data.json > /dev/null
wc -c < dl/data.json
while read l; do :; done < own.sh
while read l; do :; done < dl/data.json
bash -c 'while read l; do :; done < dl/data.json; echo done > /dev/null'
sh -c "$(printf 'echo own > /dev/null')"
cat dl/data.json | xargs -0 sh -c 'echo "$0" > /dev/null'
printf 'print(3)\\n' > own.py && python3 -c "$(cat own.py)"
cat dl/data.json | python3 -c 'import sys; sys.stdin.read()'
cat dl/data.json | jq .a
cp dl/data.json copy.json && cat copy.json > /dev/null
printf 'import sys\\nsys.stdin.read()\\n' > parse.py && python3 parse.py < dl/data.json
sh -c 'cat dl/data.json | wc -l'
printf 'print(2)\\n' | python3 -
cat dl/data.json > /dev/null; printf 'echo ok\\n' | sh
`;

const NETWORK = [
  'network:',
  '  mode: allowlist',
  '  allow: [api.allowed.test]',
  "  hosts: {api.allowed.test: '127.0.0.1:9'}",
];

async function run(name: string, script: string, tracer: 'ebpf' | 'strace'): Promise<RunReport> {
  const dir = scriptTask(work, `${name}-${tracer}`, script, NETWORK);
  const r = await execCli(['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', tracer, '--json'], {
    cwd: dir,
  });
  expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
  const report = JSON.parse(r.stdout) as RunReport;
  expect(report.observation.tracer.kind).toBe(tracer);
  expect(report.checks.find((c) => c.id === 'agent-exit')?.passed).toBe(true);
  return report;
}

/** What each spelling raises, as `rule: text the message holds` with the workspace path removed. */
const EXPECTED = [
  'exec-downloaded-code: dl/run.sh, a downloaded file, ran as a program (sourced) at sh ',
  'exec-downloaded-code: dl/run.sh, a downloaded file, ran as a program (stdin) at sh (parents: agent)',
  'exec-downloaded-code: dl/x.py, a downloaded file, ran as a program (stdin) at python3 -',
  'exec-downloaded-code: dl/x.js, a downloaded file, ran as a program (stdin) at node',
  'exec-downloaded-code: dl/run.sh, a downloaded file, ran as a program (stdin) at bash -s',
  'exec-downloaded-code: dl/run.sh, a downloaded file, ran as a program (stdin) at sh (parents: timeout, agent)',
  // Judged at whichever end comes second: cat's open, or bash's exec.
  'exec-downloaded-code: dl/run.sh, a downloaded file, ran as a program (pipe) at ',
  'exec-downloaded-code: dl/run.sh, a downloaded file, ran as a program (sourced) at bash -c source dl/run.sh',
  'exec-downloaded: c1.sh, downloaded by cp',
  'exec-downloaded: c2.sh, downloaded by',
  'exec-downloaded: c3.sh, downloaded by install',
  'exec-downloaded: c4.sh, downloaded by dd',
  'exec-downloaded: t6/run.sh, downloaded by tar',
  'exec-downloaded: t7/run.sh, downloaded by unzip',
  'exec-downloaded: c8.sh, downloaded by mv',
  'exec-downloaded-code: c9.sh, a downloaded file, ran as a program (stdin)',
  // Command substitution: the words a download made are the inline program.
  'exec-downloaded-code: dl/run.sh, a downloaded file, ran as a program (inline) at bash -c echo ran',
  'exec-downloaded-code: dl/x.js, a downloaded file, ran as a program (inline) at node -e console.log(1)',
  'exec-downloaded-code: dl/x.py, a downloaded file, ran as a program (inline) at python3 -c print(1)',
  'exec-downloaded-code: dl/x.b64, a downloaded file, ran as a program (inline) at sh -c echo b64',
  'exec-downloaded-code: dl/run.sh, a downloaded file, ran as a program (inline) at sh -c echo ran > /dev/null (parents: timeout',
  'exec-downloaded-code: dl/run.sh, a downloaded file, ran as a program (inline) at sh -c echo ran > /dev/null\n (parents: xargs',
];

describe.skipIf(skip !== null)('downloaded code run by another route, and copied before it runs', () => {
  for (const tracer of ['ebpf', 'strace'] as const) {
    it(`every spelling alerts under ${tracer}, naming the file; the honest twin is quiet`, async () => {
      const [hostile, honest] = await Promise.all([
        run('hostile', HOSTILE, tracer),
        run('honest', HONEST, tracer),
      ]);
      const seen = hostile.alerts.map(
        (a) => `${a.rule}: ${a.message.replaceAll(`${hostile.run_dir}/repo/`, '')}`,
      );
      for (const want of EXPECTED)
        expect(
          seen.some((s) => s.startsWith(want) || s.includes(want)),
          want,
        ).toBe(true);
      // The subshell's sourcing is judged when it exits: a second `sourced` alert, from another pid.
      const sourced = hostile.alerts.filter((a) => a.message.includes('(sourced) at sh '));
      expect(new Set(sourced.map((a) => a.process.pid)).size).toBe(2);
      // `sh < dl/run.sh`, `env sh < dl/run.sh` (env execs in place), and a shell reading its
      // commands from a pipe that moves its own input to the download (`echo 'exec < dl/run.sh' | sh`).
      const stdin = hostile.alerts.filter((a) =>
        a.message.includes('/dl/run.sh, a downloaded file, ran as a program (stdin) at sh (parents: agent)'),
      );
      expect(new Set(stdin.map((a) => a.process.pid)).size, seen.join('\n')).toBe(3);
      for (const a of hostile.alerts) expect(a.process.chain.length).toBeGreaterThan(0);
      expect(honest.alerts.map((a) => `${a.rule}: ${a.message}`)).toEqual([]);
      expect(honest.result).toBe('PASS');
    }, 300_000);
  }
});

// A program run through a procfs link to it: a descriptor (/dev/fd/N, /proc/self/fd/N, an O_PATH
// descriptor) or a process's exe (/proc/self/exe, /proc/<pid>/exe).
const PROC_EXE = `${DOWNLOAD(`import os, shutil
shutil.copy('/bin/dash', 'dl/mysh'); os.chmod('dl/mysh', 0o755)
shutil.copy('/bin/true', 'dl/tool'); os.chmod('dl/tool', 0o755)`)}
sh -c 'exec 3< dl/tool; exec /dev/fd/3'
sh -c 'exec 4< dl/tool; exec /proc/self/fd/4'
python3 -c "import os; fd = os.open('dl/tool', os.O_PATH); os.execv('/proc/self/fd/%d' % fd, ['y'])"
dl/mysh -c 'exec /proc/self/exe -c true'
dl/mysh -c 'sleep 2' & sleep 0.5; /proc/$!/exe -c true; wait
`;

// A trusted program re-executing itself through /proc/self/exe (Go programs do) stays quiet.
const PROC_EXE_HONEST = `python3 -c "import os; os.execv('/proc/self/exe', ['python3', '-c', 'print(1)'])"
sh -c 'exec /proc/self/exe -c true'
`;

describe.skipIf(skip !== null)(
  'a program run through /proc/self/exe, /proc/<pid>/exe or a descriptor',
  () => {
    for (const tracer of ['ebpf', 'strace'] as const) {
      it(`is judged as the program it names under ${tracer}; a trusted re-exec is quiet`, async () => {
        const [hostile, honest] = await Promise.all([
          run('procexe', PROC_EXE, tracer),
          run('procexe-honest', PROC_EXE_HONEST, tracer),
        ]);
        const repo = `${hostile.run_dir}/repo`;
        const written = (rule: string) =>
          hostile.alerts.filter((a) => a.rule === rule).map((a) => a.path_as_written ?? a.path);
        expect(written('exec-downloaded')).toEqual(
          expect.arrayContaining(['/dev/fd/3', '/proc/self/fd/4', `${repo}/dl/mysh`]),
        );
        expect(written('exec-downloaded').some((p) => /^\/proc\/self\/fd\/\d+$/.test(p ?? ''))).toBe(true);
        // The shell re-executed through /proc/self/exe is the same downloaded program in the same
        // process: one alert, counted twice.
        const reexec = hostile.alerts.find(
          (a) => a.rule === 'exec-downloaded' && a.process.argv.join(' ').includes('exec /proc/self/exe'),
        );
        expect(reexec?.count).toBe(2);
        // Another process's exe, by its pid in the sandbox: the collector records what the kernel
        // ran; strace cannot map the pid, and says so.
        const other = hostile.alerts.find((a) =>
          /^\/proc\/\d+\/exe$/.test(a.path_as_written ?? a.path ?? ''),
        );
        expect(other?.rule).toBe(tracer === 'ebpf' ? 'exec-downloaded' : 'evasion-descriptor-path');
        if (tracer === 'ebpf') expect(other?.path).toBe(`${repo}/dl/mysh`);
        expect(honest.alerts.map((a) => `${a.rule}: ${a.message}`)).toEqual([]);
      }, 300_000);
    }
  },
);
