import { describe, expect, it } from 'vitest';
import { abstractName, isRandomToken, normalisePath, type PathContext } from './normalise-path.js';

const RUN = '20261202-131543-7aaea1a3';
const ctx: PathContext = {
  workspaceDir: `/tmp/agt2/.agentguard/runs/${RUN}/repo`,
  homeDirs: ['/root', `/tmp/agt2/.agentguard/runs/${RUN}/home`],
  runDir: `/tmp/agt2/.agentguard/runs/${RUN}`,
  runId: RUN,
};
const n = (p: string) => normalisePath(p, ctx);

describe('normalisePath', () => {
  it('makes workspace paths workspace-relative, and the workspace itself $WORKSPACE', () => {
    expect(n(`/tmp/agt2/.agentguard/runs/${RUN}/repo/src/slugify.js`)).toBe('$WORKSPACE/src/slugify.js');
    expect(n(`/tmp/agt2/.agentguard/runs/${RUN}/repo`)).toBe('$WORKSPACE');
    expect(n(`/tmp/agt2/.agentguard/runs/${RUN}/repo/`)).toBe('$WORKSPACE');
    expect(n(`/tmp/agt2/.agentguard/runs/${RUN}/repo/./src/../test//a.js`)).toBe('$WORKSPACE/test/a.js');
    // A sibling whose name only starts like the workspace is not inside it.
    expect(n(`/tmp/agt2/.agentguard/runs/${RUN}/repo2/x`)).toBe('$RUN_DIR/repo2/x');
  });

  it('maps both the sandbox HOME and the host folder behind it to $HOME', () => {
    expect(n('/root/.ssh/id_rsa')).toBe('$HOME/.ssh/id_rsa');
    expect(n(`/tmp/agt2/.agentguard/runs/${RUN}/home/.aws/credentials`)).toBe('$HOME/.aws/credentials');
    expect(n('/rootfs/x')).toBe('/rootfs/x');
  });

  it('prefers the longest root: a workspace inside HOME stays $WORKSPACE', () => {
    const nested: PathContext = { workspaceDir: '/home/u/project', homeDirs: ['/home/u'], runId: 'r-0001' };
    expect(normalisePath('/home/u/project/a.py', nested)).toBe('$WORKSPACE/a.py');
    expect(normalisePath('/home/u/.bashrc', nested)).toBe('$HOME/.bashrc');
  });

  it('never treats / as a HOME to replace', () => {
    const slash: PathContext = { workspaceDir: '/w', homeDirs: ['/'], runId: 'abcd-1' };
    expect(normalisePath('/etc/passwd', slash)).toBe('/etc/passwd');
  });

  it('replaces the run id anywhere else with $RUN', () => {
    expect(n(`/sys/fs/cgroup/unified/agentguard/${RUN}/cgroup.procs`)).toBe(
      '/sys/fs/cgroup/unified/agentguard/$RUN/cgroup.procs',
    );
    expect(n(`/var/log/agentguard-${RUN}.log`)).toBe('/var/log/agentguard-$RUN.log');
  });

  it('abstracts pids, thread ids and descriptor numbers under /proc and /dev/fd', () => {
    expect(n('/proc/12779/status')).toBe('/proc/$PID/status');
    expect(n('/proc/12779')).toBe('/proc/$PID');
    expect(n('/proc/self/task/12781/comm')).toBe('/proc/self/task/$TID/comm');
    expect(n('/proc/self/fd/17')).toBe('/proc/self/fd/$FD');
    expect(n('/dev/fd/3')).toBe('/dev/fd/$FD');
    // Named /proc entries keep their names.
    expect(n('/proc/meminfo')).toBe('/proc/meminfo');
    expect(n('/proc/self/maps')).toBe('/proc/self/maps');
  });

  it('abstracts random temp names but keeps plain ones', () => {
    expect(n('/tmp/xyz123')).toBe('/tmp/$RAND');
    expect(n('/tmp/ag-bench-AbCdEf/out.json')).toBe('/tmp/ag-bench-$RAND/out.json');
    expect(n('/tmp/tmp.k3J9xQ2mZp/file')).toBe('/tmp/tmp.$RAND/file');
    expect(n('/tmp/tmpqwertyu_a/x.py')).toBe('/tmp/$RAND_a/x.py');
    expect(n('/tmp/pytest-of-root/pytest-3/test_a0/data.txt')).toBe(
      '/tmp/pytest-of-root/pytest-$RAND/test_$RAND/data.txt',
    );
    expect(n('/var/tmp/npm-4242-0a1b/cache')).toBe('/var/tmp/npm-$RAND-$RAND/cache');
    expect(n('/tmp/build.log')).toBe('/tmp/build.log');
    // Outside temp roots a digit is not randomness.
    expect(n('/usr/lib/python3.11/os.py')).toBe('/usr/lib/python3.11/os.py');
  });

  it('two runs with different run ids, pids and temp names give the same names', () => {
    const other: PathContext = {
      workspaceDir: '/tmp/agt2/.agentguard/runs/20261203-090000-00ff00ff/repo',
      homeDirs: ['/root'],
      runId: '20261203-090000-00ff00ff',
    };
    const pairs: [string, string][] = [
      [
        `/tmp/agt2/.agentguard/runs/${RUN}/repo/a.js`,
        '/tmp/agt2/.agentguard/runs/20261203-090000-00ff00ff/repo/a.js',
      ],
      ['/proc/100/cmdline', '/proc/200/cmdline'],
      ['/tmp/ag-x-Qw3rTy/a', '/tmp/ag-x-Zz9zZz/a'],
    ];
    for (const [a, b] of pairs) expect(n(a)).toBe(normalisePath(b, other));
  });

  it('abstracts long hex tokens (content hashes) anywhere', () => {
    expect(n('/root/.npm/_cacache/content-v2/sha512/ab/cd/0123456789abcdef0123')).toBe(
      '$HOME/.npm/_cacache/content-v2/sha512/ab/cd/$HEX',
    );
    expect(
      n(`/tmp/agt2/.agentguard/runs/${RUN}/repo/.git/objects/b3/9f62610ee4babcf2c6453d2b276c5ad7bb2b4`),
    ).toBe('$WORKSPACE/.git/objects/b3/$HEX');
    expect(n('/usr/share/doc/cafe')).toBe('/usr/share/doc/cafe');
  });

  it('leaves relative paths cleaned but otherwise alone', () => {
    expect(n('src/./a.js')).toBe('src/a.js');
    expect(n('')).toBe('');
  });
});

describe('random tokens', () => {
  it('classifies tokens by the shapes temp-file makers produce', () => {
    expect(isRandomToken('a1b2c3')).toBe(true);
    expect(isRandomToken('12345')).toBe(true);
    expect(isRandomToken('AbCdEf')).toBe(true);
    expect(isRandomToken('tmpabcdefg')).toBe(true);
    expect(isRandomToken('MyFile')).toBe(false);
    expect(isRandomToken('build')).toBe(false);
    expect(isRandomToken('README')).toBe(false);
    expect(isRandomToken('$RAND')).toBe(false);
  });

  it('keeps separators and extensions', () => {
    expect(abstractName('report-2024_x9.final.json')).toBe('report-$RAND_$RAND.final.json');
  });
});
