import { describe, expect, it } from 'vitest';
import { runtimeRule } from './runtime-files.js';

describe('runtimeRule', () => {
  it.each([
    ['/etc/ld.so.cache', 'dynamic-linker'],
    ['/lib/x86_64-linux-gnu/libc.so.6', 'shared-library'],
    ['/lib/x86_64-linux-gnu/libstdc++.so.6', 'shared-library'],
    ['$WORKSPACE/.venv/lib/python3.11/site-packages/_cffi.cpython-311-x86_64-linux-gnu.so', 'shared-library'],
    ['/usr/lib/locale/C.utf8/LC_CTYPE', 'locale'],
    ['/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache', 'locale'],
    ['/etc/localtime', 'locale'],
    ['/proc/self/maps', 'process-self'],
    ['/proc/$PID/status', 'process-self'],
    ['/proc/meminfo', 'system-info'],
    ['/sys/fs/cgroup/memory/memory.limit_in_bytes', 'system-info'],
    ['/dev/null', 'devices'],
    ['/dev/pts/0', 'devices'],
    ['/etc/nsswitch.conf', 'name-service'],
    ['unix:/var/run/nscd/socket', 'name-service'],
    ['/etc/ssl/openssl.cnf', 'tls-config'],
    ['/usr/bin/node', 'program-image'],
    ['/usr/lib/python3.11/os.py', 'interpreter-library'],
    ['/usr/lib/node_modules/npm/lib/cli.js', 'interpreter-library'],
  ])('%s is runtime (%s)', (name, rule) => {
    expect(runtimeRule(name)).toBe(rule);
  });

  it.each([
    '$WORKSPACE/src/slugify.js',
    '$WORKSPACE/test/slugify.test.js',
    '$HOME/.ssh/id_rsa',
    '/etc/shadow',
    '/tmp/build.log',
    '/work/main/benchmarks/js-slugify/solution/src/slugify.js',
    '/usr/share/doc/git/README',
    '/devices/x',
    '/procfs/x',
  ])('%s is behaviour', (name) => {
    expect(runtimeRule(name)).toBeUndefined();
  });

  it('treats declared folders (the agent’s own installation) as runtime', () => {
    expect(runtimeRule('/work/main/dist/agents/mock-agent.js', ['/work/main/dist'])).toBe('declared');
    expect(runtimeRule('/work/main/distx/a.js', ['/work/main/dist/'])).toBeUndefined();
  });
});
