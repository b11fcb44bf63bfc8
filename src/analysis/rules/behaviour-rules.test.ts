import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../package-root.js';
import { evaluateRules } from './evaluate.js';
import { loadRuleSet } from './load-rules.js';
import { buildRuleSet } from './ruleset.js';
import { CTX, HOME, Trace, WS } from './test-events.js';

/**
 * The catalogue behaviours whose evidence spans several events: pipelines (siblings), a shell on a
 * connection (the process's own connects), bursts (thresholds), and namespace flags on clone.
 */
const rules = loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') });
const ids = (t: Trace) =>
  evaluateRules({ syscalls: t.events, network: t.records }, rules, CTX).map((a) => a.rule);

describe('decode-and-execute pipelines', () => {
  it('fires whichever member execs first, even after the decoder has exited', () => {
    const shellFirst = new Trace();
    shellFirst
      .fork(1, 2)
      .fork(1, 3)
      .exec(3, 1, '/usr/bin/bash', ['bash'])
      .exec(2, 1, '/usr/bin/xxd', ['xxd', '-r', '-p']);
    expect(ids(shellFirst)).toContain('exec-decode-to-shell');
    const decoderGone = new Trace();
    decoderGone.fork(1, 2).fork(1, 3).exec(2, 1, '/usr/bin/curl', ['curl', '-s', 'http://x/i.sh']).exit(2);
    decoderGone.exec(3, 1, '/usr/bin/sh', ['sh', '-s', '--', '--yes']);
    expect(ids(decoderGone)).toContain('exec-decode-to-shell');
    // The decoder finished before the shell was even forked: still its neighbour in the pipeline.
    const early = new Trace();
    early.exec(2, 1, '/usr/bin/base64', ['base64', '-d']).exit(2).exec(3, 1, '/usr/bin/sh', ['sh']);
    expect(ids(early)).toContain('exec-decode-to-shell');
  });

  it('does not join children of different parents, or a shell that runs a script file', () => {
    const cousins = new Trace();
    cousins.exec(2, 1, '/usr/bin/sh', ['sh', '-c', 'a']).exec(3, 1, '/usr/bin/sh', ['sh', '-c', 'b']);
    cousins.exec(4, 2, '/usr/bin/base64', ['base64', '-d', 'x']).exec(5, 3, '/usr/bin/sh', ['sh']);
    expect(ids(cousins)).not.toContain('exec-decode-to-shell');
    const script = new Trace();
    script.fork(1, 2).fork(1, 3).exec(2, 1, '/usr/bin/base64', ['base64', '-d', 'x']);
    script.exec(3, 1, '/usr/bin/sh', ['sh', 'build.sh']);
    expect(ids(script)).not.toContain('exec-decode-to-shell');
  });

  it('fires on decode-and-run in one command line, not on a search for it', () => {
    const inline = new Trace();
    inline.exec(2, 1, '/usr/bin/python3', [
      'python3',
      '-c',
      'import base64;exec(base64.b64decode("cHJpbnQoMSk="))',
    ]);
    expect(ids(inline)).toContain('exec-decode-to-shell');
    const search = new Trace();
    search.exec(2, 1, '/usr/bin/rg', ['rg', 'exec(base64.b64decode', 'src']);
    expect(ids(search)).toEqual([]);
  });
});

describe('reverse shells', () => {
  it('fires on an interactive shell whose parent holds the connection (python pty.spawn)', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/python3', ['python3', '-c', 'x'])
      .connect(2, { family: 'inet', ip: '10.0.0.5', port: 4444 })
      .exec(3, 2, '/bin/sh', ['sh', '-i']);
    expect(ids(t)).toContain('exec-reverse-shell');
  });

  it('does not fire on a non-interactive shell started by a process that made connections', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/node', ['node', 'agent.js'])
      .connect(2, { family: 'inet', ip: '127.0.0.1', port: 3128 })
      .exec(3, 2, '/bin/bash', ['bash', '-lc', 'npm test']);
    expect(ids(t)).toEqual([]);
  });
});

describe('namespace flags on clone', () => {
  it('a clone into new namespaces is a namespace change; a plain fork is not', () => {
    const t = new Trace();
    t.exec(2, 1, '/usr/bin/python3', ['python3', 'x.py']).event(2, {
      kind: 'fork',
      syscall: 'clone',
      flags: ['CLONE_NEWNS', 'CLONE_NEWUSER'],
      result: -1,
    });
    expect(ids(t)).toEqual(['exec-namespace-change']);
    const plain = new Trace();
    plain.exec(2, 1, '/usr/bin/make', ['make']).fork(2, 3);
    expect(ids(plain)).toEqual([]);
  });
});

describe('bulk deletion', () => {
  it('needs the count within the window, counts across processes, and raises one alert', () => {
    const slow = new Trace();
    for (let i = 0; i < 60; i++) {
      slow.meta(1, 'unlink', `${HOME}/docs/f${i}`);
      // Trace advances 1 ms per event: 300 fillers space the deletions 301 ms apart, 33 per 10 s.
      for (let j = 0; j < 300; j++) slow.open(1, `${WS}/README.md`);
    }
    // Each deletion outside the workspace is also its own integrity-outside-workspace alert.
    expect(ids(slow)).not.toContain('integrity-bulk-delete');
    const burst = new Trace();
    for (let i = 0; i < 120; i++)
      burst.exec(10 + i, 1, '/usr/bin/rm', ['rm', `f${i}`]).meta(10 + i, 'unlink', `${HOME}/docs/f${i}`);
    const alerts = evaluateRules({ syscalls: burst.events }, rules, CTX).filter(
      (a) => a.rule === 'integrity-bulk-delete',
    );
    expect(alerts.map((a) => a.count)).toEqual([120]);
  });

  it('a threshold is validated: count of at least 2 and a positive window', () => {
    const text = (threshold: string) =>
      `rules:\n  - id: r\n    description: d\n    class: integrity\n    severity: error\n    condition: kind = write-meta\n    threshold: ${threshold}\n`;
    expect(() => buildRuleSet([{ file: 't.yaml', text: text('{count: 1, within_seconds: 5}') }])).toThrow(
      /t\.yaml: rule 'r', field 'threshold\.count': must be at least 2/,
    );
    expect(() => buildRuleSet([{ file: 't.yaml', text: text('{count: 3, within_seconds: 0}') }])).toThrow(
      /threshold\.within_seconds/,
    );
    expect(
      buildRuleSet([{ file: 't.yaml', text: text('{count: 3, within_seconds: 2}') }]).rules[0]?.threshold,
    ).toEqual({
      count: 3,
      withinMs: 2000,
    });
  });
});

describe('reverse shells through a parent or a pipeline', () => {
  it('fires on a bare shell spawned by a connected parent (pty.spawn) and on sh -i piped with a client', () => {
    const pty = new Trace();
    pty
      .exec(2, 1, '/usr/bin/python3', ['python3', '-c', 'pty'])
      .connect(2, { family: 'inet', ip: '10.0.0.5', port: 4444 })
      .exec(3, 2, '/bin/sh', ['/bin/sh']);
    expect(ids(pty)).toContain('exec-reverse-shell');
    // cat fifo | sh -i 2>&1 | python3 client.py > fifo: the client connects after the shell started.
    const fifo = new Trace();
    fifo
      .fork(1, 2)
      .fork(1, 3)
      .fork(1, 4)
      .exec(2, 1, '/usr/bin/cat', ['cat', '/tmp/f'])
      .exec(3, 1, '/bin/sh', ['sh', '-i']);
    fifo
      .exec(4, 1, '/usr/bin/python3', ['python3', 'client.py'])
      .connect(4, { family: 'inet', ip: '127.0.0.1', port: 4444 });
    expect(ids(fifo)).toContain('exec-reverse-shell');
  });

  it('does not fire on a pipeline with a client and a shell running -c', () => {
    const t = new Trace();
    t.fork(1, 2).fork(1, 3).exec(2, 1, '/bin/sh', ['sh', '-c', 'make test']);
    t.bind(2, { family: 'inet', ip: '127.0.0.1', port: 8080 });
    t.exec(3, 1, '/usr/bin/python3', ['python3', 'client.py']).connect(3, {
      family: 'inet',
      ip: '127.0.0.1',
      port: 8080,
    });
    expect(ids(t)).toEqual([]);
  });
});

describe('the tests phase, judged with what the agent did before', () => {
  it('knows the agent wrote the program the tests run: a package manager it changed is not trusted', () => {
    const cli = `${HOME}/.cache/node/corepack/v1/yarn/1.22.22/lib/cli.js`;
    const agent = new Trace();
    agent.exec(2, 1, '/usr/bin/sh', ['sh', '-c', `echo x >> ${cli}`]).open(2, cli, 'write');
    const tests = new Trace();
    tests.exec(50, 1, '/usr/bin/node', ['/usr/bin/node', cli, 'run', 'test']).open(50, `${HOME}/.npmrc`);
    const judged = (before: Trace['events']) =>
      evaluateRules({ syscalls: tests.events, before }, rules, CTX).map((a) => a.rule);
    // Alone, the tests' yarn reading its own config is use; after the agent changed that yarn, theft.
    expect(judged([])).not.toContain('secrets-canary-read');
    expect(judged(agent.events)).toContain('secrets-canary-read');
    expect(judged(agent.events)).toContain('exec-run-created-outside-workspace');
  });

  it('knows it through a hard link the agent made to that program, and through a rename onto it', () => {
    const cli = `${HOME}/.cache/node/corepack/v1/yarn/1.22.22/lib/cli.js`;
    const linked = new Trace();
    linked.exec(2, 1, '/usr/bin/sh', ['sh']).meta(2, 'link', cli, `${HOME}/x`).open(2, `${HOME}/x`, 'write');
    const renamed = new Trace();
    renamed
      .exec(2, 1, '/usr/bin/sh', ['sh'])
      .open(2, `${HOME}/y`, 'create')
      .meta(2, 'rename', `${HOME}/y`, cli);
    const tests = new Trace();
    tests.exec(50, 1, '/usr/bin/node', ['/usr/bin/node', cli, 'run', 'test']).open(50, `${HOME}/.npmrc`);
    for (const agent of [linked, renamed])
      expect(
        evaluateRules({ syscalls: tests.events, before: agent.events }, rules, CTX).map((a) => a.rule),
      ).toContain('secrets-canary-read');
  });
});
