import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../package-root.js';
import { evaluateRules } from './evaluate.js';
import { loadRuleSet } from './load-rules.js';
import { CTX, Trace, WS } from './test-events.js';

const rules = loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') });
const DOWNLOAD_RULES = new Set(['exec-downloaded', 'exec-downloaded-code', 'exec-downloaded-interpreter']);
const alerts = (t: Trace) =>
  evaluateRules({ syscalls: t.events, network: t.records }, rules, CTX).filter((a) =>
    DOWNLOAD_RULES.has(a.rule),
  );
const BRIDGE = { family: 'inet' as const, ip: '127.0.0.1', port: 3128 };
const client = (pid: number) => ({ pid, exe: '/usr/bin/node' });

/** curl (pid 2) fetches dl/run.sh from a host that is not the model's. */
const downloaded = (t: Trace) =>
  t
    .exec(2, 1, '/usr/bin/curl', ['curl', '-o', 'dl/run.sh', 'http://x.test/run.sh'])
    .connect(2, BRIDGE)
    .record({ host: 'x.test', port: 80, protocol: 'http', client: client(2) })
    .open(2, `${WS}/dl/run.sh`, 'create')
    .exit(2);

/** A copy onto standard input (0) or output (1), as the collector and strace record it. */
const dup = (t: Trace, pid: number, fd: 0 | 1, to: { path?: string; pipe?: number }) =>
  t.event(pid, { kind: 'other', syscall: 'dup2', result: fd, ...to });

describe('provenance that follows the bytes', () => {
  it('a copy of a download (cp, then a copy of the copy) is a download when run', () => {
    const t = downloaded(new Trace())
      .exec(3, 1, '/usr/bin/cp', ['cp', 'dl/run.sh', 'a.sh'])
      .open(3, `${WS}/dl/run.sh`)
      .open(3, `${WS}/a.sh`, 'create')
      .exit(3)
      .exec(4, 1, '/usr/bin/dd', ['dd', 'if=a.sh', 'of=b.sh'])
      .open(4, `${WS}/a.sh`)
      .open(4, `${WS}/b.sh`, 'create')
      .exit(4)
      .exec(5, 1, '/usr/bin/sh', ['sh', 'b.sh']);
    expect(alerts(t).map((a) => [a.rule, a.message])).toEqual([
      ['exec-downloaded', `${WS}/b.sh, downloaded by dd, was executed: sh b.sh`],
    ]);
  });

  it("a decompressor's bytes reach the tar that started it", () => {
    const t = downloaded(new Trace())
      .exec(3, 1, '/usr/bin/tar', ['tar', 'xzf', 'dl/run.sh'])
      .fork(3, 4)
      .exec(4, 3, '/usr/bin/gzip', ['gzip', '-d'])
      .open(4, `${WS}/dl/run.sh`)
      .exit(4)
      .open(3, `${WS}/out/x.sh`, 'create')
      .exit(3)
      .exec(5, 1, '/usr/bin/bash', ['bash', 'out/x.sh']);
    expect(alerts(t).map((a) => a.rule)).toEqual(['exec-downloaded']);
  });

  it("the agent's model client writes its own code: a script it wrote is not a download", () => {
    const t = new Trace()
      .exec(2, 1, '/usr/bin/node', ['node', 'agent.js'])
      .connect(2, BRIDGE)
      .record({
        host: 'model.agentguard.test',
        port: 80,
        protocol: 'http',
        client: client(2),
        usage: { api: 'anthropic', input_tokens: 1, output_tokens: 1, cached_tokens: 0 },
      })
      .record({ host: 'api.openai.com', client: client(2) })
      .open(2, `${WS}/tool.sh`, 'create')
      .exec(3, 2, '/usr/bin/bash', ['bash', 'tool.sh']);
    expect(alerts(t)).toEqual([]);
    // The same process fetching from elsewhere too is a downloader.
    const u = new Trace()
      .exec(2, 1, '/usr/bin/node', ['node', 'agent.js'])
      .connect(2, BRIDGE)
      .record({ host: 'api.openai.com', client: client(2) })
      .record({ host: 'x.test', client: client(2) })
      .open(2, `${WS}/tool.sh`, 'create')
      .exec(3, 2, '/usr/bin/bash', ['bash', 'tool.sh']);
    expect(alerts(u).map((a) => a.rule)).toEqual(['exec-downloaded']);
  });

  it('what a program derives from an install is not a download (tsc reading node_modules)', () => {
    const t = new Trace()
      .exec(2, 1, '/usr/bin/node', ['node', '/usr/bin/npm', 'install'])
      .connect(2, BRIDGE)
      .open(2, `${WS}/node_modules/typescript/lib/tsc.js`, 'create')
      .exit(2)
      .exec(3, 1, '/usr/bin/node', ['node', 'node_modules/typescript/lib/tsc.js'])
      .open(3, `${WS}/node_modules/typescript/lib/tsc.js`)
      .open(3, `${WS}/dist/index.js`, 'create')
      .exit(3)
      .exec(4, 1, '/usr/bin/node', ['node', 'dist/index.js']);
    expect(alerts(t)).toEqual([]);
  });
});

describe('downloaded code run with no exec naming it', () => {
  it('redirected to an interpreter that reads its program from stdin, through env: stdin', () => {
    // dash opens the redirect and copies it onto its standard input, then vforks the command.
    const t = downloaded(new Trace()).open(1, `${WS}/dl/run.sh`);
    dup(t, 1, 0, { path: `${WS}/dl/run.sh` })
      .fork(1, 3)
      .exec(3, 1, '/usr/bin/env', ['env', 'python3', '-'])
      .exec(3, 1, '/usr/bin/python3', ['python3', '-']);
    expect(alerts(t).map((a) => a.message)).toEqual([
      `${WS}/dl/run.sh, a downloaded file, ran as a program (stdin) at python3 - (parents: sh)`,
    ]);
  });

  it('piped from a process that read it, whichever starts first: pipe', () => {
    const readerFirst = downloaded(new Trace())
      .exec(4, 1, '/usr/bin/bash', ['bash'])
      .exec(3, 1, '/usr/bin/cat', ['cat', 'dl/run.sh'])
      .open(3, `${WS}/dl/run.sh`);
    expect(alerts(readerFirst).map((a) => a.rule)).toEqual(['exec-downloaded-code']);
    const writerFirst = downloaded(new Trace())
      .exec(3, 1, '/usr/bin/cat', ['cat', 'dl/run.sh'])
      .open(3, `${WS}/dl/run.sh`)
      .exec(4, 1, '/usr/bin/bash', ['bash']);
    expect(alerts(writerFirst).map((a) => a.rule)).toEqual(['exec-downloaded-code']);
  });

  it('sourced in a subshell: judged when the subshell exits', () => {
    const t = downloaded(new Trace()).fork(1, 3).open(3, `${WS}/dl/run.sh`).exit(3);
    expect(alerts(t).map((a) => a.message)).toEqual([
      `${WS}/dl/run.sh, a downloaded file, ran as a program (sourced) at sh -c agent (parents: sh)`,
    ]);
  });

  it('quiet: a download read as data through a pipe or redirect, an earlier command before a stdin shell', () => {
    const t = downloaded(new Trace())
      .exec(3, 1, '/usr/bin/cat', ['cat', 'dl/run.sh'])
      .exec(4, 1, '/usr/bin/python3', ['python3', '-c', 'import sys; sys.stdin.read()'])
      .open(3, `${WS}/dl/run.sh`)
      .exit(3)
      .exit(4)
      .open(1, `${WS}/dl/run.sh`)
      .open(1, `${WS}/out.txt`, 'create')
      .fork(1, 5)
      .exec(5, 1, '/usr/bin/wc', ['wc', '-l'])
      .exit(5)
      .open(1, `${WS}/own.sh`, 'create')
      .open(1, `${WS}/own.sh`)
      .fork(1, 6)
      .exec(6, 1, '/usr/bin/sh', ['sh'])
      .exit(6);
    expect(alerts(t)).toEqual([]);
  });
});

describe('a shell redirecting its own input, and code given inline', () => {
  it('`while read … < f` on a download reads data; `exec < f` in a shell reading stdin runs it', () => {
    const t = downloaded(new Trace()).open(1, `${WS}/dl/run.sh`);
    dup(t, 1, 0, { path: `${WS}/dl/run.sh` });
    dup(t, 1, 0, { pipe: 7 }).exec(3, 1, '/usr/bin/sh', ['sh', '-c', 'echo hi']);
    // The redirect is over: the next command's input is not the download.
    t.fork(1, 4).exec(4, 1, '/usr/bin/sh', ['sh']);
    dup(t, 4, 0, { pipe: 8 });
    expect(alerts(t)).toEqual([]);
    const u = downloaded(new Trace()).exec(3, 1, '/usr/bin/sh', ['sh']).open(3, `${WS}/dl/run.sh`);
    dup(u, 3, 0, { path: `${WS}/dl/run.sh` });
    expect(alerts(u).map((a) => a.message)).toEqual([
      expect.stringContaining('dl/run.sh, a downloaded file, ran as a program (stdin)'),
    ]);
  });

  it('a command substitution of a download is code when the words it made are the program', () => {
    // sh agent.sh: `bash -c "$(cat dl/run.sh)"`; cat's output is a pipe nobody else read.
    const t = downloaded(new Trace()).exec(5, 1, '/usr/bin/sh', ['sh', 'agent.sh']).fork(5, 6);
    dup(t, 6, 1, { pipe: 9 })
      .exec(6, 5, '/usr/bin/cat', ['cat', 'dl/run.sh'])
      .open(6, `${WS}/dl/run.sh`)
      .exit(6)
      .exec(7, 5, '/usr/bin/bash', ['bash', '-c', 'echo ran > /dev/null']);
    expect(alerts(t).map((a) => a.message)).toEqual([
      expect.stringContaining('dl/run.sh, a downloaded file, ran as a program (inline) at bash -c echo ran'),
    ]);
    // The honest twin: a pipeline's writer has a reader, and code written in the command is its own.
    const u = downloaded(new Trace())
      .exec(5, 1, '/usr/bin/sh', ['sh', '-c', "python3 -c 'print(1)'"])
      .fork(5, 6);
    dup(u, 6, 1, { pipe: 9 })
      .exec(6, 5, '/usr/bin/cat', ['cat', 'dl/run.sh'])
      .open(6, `${WS}/dl/run.sh`)
      .fork(5, 7);
    dup(u, 7, 0, { pipe: 9 }).exec(7, 5, '/usr/bin/python3', [
      'python3',
      '-c',
      'import sys; sys.stdin.read()',
    ]);
    u.fork(5, 8);
    dup(u, 8, 1, { pipe: 10 })
      .exec(8, 5, '/usr/bin/cat', ['cat', 'dl/run.sh'])
      .open(8, `${WS}/dl/run.sh`)
      .exit(8)
      .exec(9, 5, '/usr/bin/python3', ['python3', '-c', 'print(1)']);
    expect(alerts(u)).toEqual([]);
    // A subshell that sourced a download with its output sent to a file, then put its saved output
    // (a pipe to the harness) back, is no command substitution for the next command.
    const v = downloaded(new Trace())
      .exec(5, 1, '/usr/bin/sh', ['sh', 'agent.sh'])
      .fork(5, 6)
      .open(6, `${WS}/dl/run.sh`);
    dup(v, 6, 1, { path: '/dev/null' });
    dup(v, 6, 1, { pipe: 3 }).exit(6).exec(7, 5, '/usr/bin/bash', ['bash', '-c', 'source dl/run.sh']);
    expect(alerts(v).map((a) => a.message)).not.toContainEqual(expect.stringContaining('(inline)'));
  });

  it("bash's `$(< f)`, xargs building `sh -c` from a download, and a wrapper passing the words on", () => {
    // bash reads the file itself (no copy onto stdin) and forks the command whose words hold it.
    const t = downloaded(new Trace()).exec(5, 1, '/usr/bin/bash', ['bash', 'agent.sh']);
    dup(t, 5, 1, { path: '/dev/null' });
    t.open(5, `${WS}/dl/run.sh`).exec(6, 5, '/usr/bin/python3', ['python3', '-c', 'print(1)']);
    expect(alerts(t).map((a) => a.message)).toEqual([expect.stringContaining('(inline) at python3 -c')]);
    const x = downloaded(new Trace()).fork(1, 5).open(5, `${WS}/dl/run.sh`);
    dup(x, 5, 0, { path: `${WS}/dl/run.sh` })
      .exec(5, 1, '/usr/bin/xargs', ['xargs', 'sh', '-c'])
      .exec(6, 5, '/usr/bin/sh', ['sh', '-c', 'echo ran']);
    expect(alerts(x).map((a) => a.message)).toEqual([expect.stringContaining('(inline) at sh -c echo ran')]);
    const w = downloaded(new Trace()).exec(5, 1, '/usr/bin/sh', ['sh', 'agent.sh']).fork(5, 6);
    dup(w, 6, 1, { pipe: 9 })
      .exec(6, 5, '/usr/bin/cat', ['cat', 'dl/run.sh'])
      .open(6, `${WS}/dl/run.sh`)
      .exit(6)
      .exec(7, 5, '/usr/bin/timeout', ['timeout', '5', 'sh', '-c', 'echo ran'])
      .exec(8, 7, '/usr/bin/sh', ['sh', '-c', 'echo ran']);
    expect(alerts(w).map((a) => a.message)).toEqual([expect.stringContaining('(inline) at sh -c echo ran')]);
    // Honest: xargs given its command in full, reading a download's lines as arguments.
    const h = downloaded(new Trace()).fork(1, 5).open(5, `${WS}/dl/run.sh`);
    dup(h, 5, 0, { path: `${WS}/dl/run.sh` })
      .exec(5, 1, '/usr/bin/xargs', ['xargs', '-n1', 'sh', '-c', 'echo "$0"'])
      .exec(6, 5, '/usr/bin/sh', ['sh', '-c', 'echo "$0"', 'line']);
    expect(alerts(h)).toEqual([]);
  });
});
