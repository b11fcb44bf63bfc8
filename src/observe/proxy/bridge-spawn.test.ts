import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridgeBwrapArgs, bridgeScriptPath, bridgeSpawn } from './bridge-spawn.js';
import { parseBridgeArgs } from './sandbox-bridge.js';

describe('bridgeSpawn', () => {
  const agent = {
    argv: ['codex', 'exec', 'fix it'],
    cwd: '/work',
    env: { PATH: '/usr/bin', HTTP_PROXY: 'http://old' },
  };

  it('prefixes the bridge launcher and points every usual proxy variable at it', () => {
    const spec = bridgeSpawn(agent, { node: '/usr/bin/node', bridgeScript: '/b/sandbox-bridge.js' });
    expect(spec.argv).toEqual([
      '/usr/bin/node',
      '/b/sandbox-bridge.js',
      '--tcp',
      '3128:/run/agentguard/proxy.sock',
      '--',
      'codex',
      'exec',
      'fix it',
    ]);
    expect(spec.cwd).toBe('/work');
    expect(spec.env).toEqual({
      PATH: '/usr/bin',
      HTTP_PROXY: 'http://127.0.0.1:3128',
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      http_proxy: 'http://127.0.0.1:3128',
      https_proxy: 'http://127.0.0.1:3128',
      ALL_PROXY: 'socks5h://127.0.0.1:3128',
      all_proxy: 'socks5h://127.0.0.1:3128',
      NO_PROXY: 'localhost,127.0.0.1,::1',
      no_proxy: 'localhost,127.0.0.1,::1',
    });
    expect(agent.env.HTTP_PROXY).toBe('http://old');
  });

  it('produces argv the bridge itself parses back, DNS included', () => {
    const spec = bridgeSpawn(agent, { proxyPort: 8888, dnsSocket: '/run/agentguard/dns.sock' });
    expect(spec.argv[0]).toBe(process.execPath);
    expect(spec.argv[1]).toBe(bridgeScriptPath());
    expect(bridgeScriptPath()).toMatch(/observe\/proxy\/sandbox-bridge\.js$/);
    expect(parseBridgeArgs(spec.argv.slice(2))).toEqual({
      tcp: [{ port: 8888, socket: '/run/agentguard/proxy.sock' }],
      dns: { socket: '/run/agentguard/dns.sock', port: 53 },
      argv: ['codex', 'exec', 'fix it'],
    });
  });
});

describe('parseBridgeArgs', () => {
  it('explains what is wrong', () => {
    expect(parseBridgeArgs(['--tcp', '3128:/s'])).toMatch(/^no command after --/);
    expect(parseBridgeArgs(['--tcp', 'x:/s', '--', 'a'])).toMatch(/--tcp wants PORT:SOCKET/);
    expect(parseBridgeArgs(['--tcp', '3128:', '--', 'a'])).toMatch(/--tcp wants PORT:SOCKET/);
    expect(parseBridgeArgs(['--bogus', '1', '--', 'a'])).toMatch(/unknown option --bogus/);
    expect(parseBridgeArgs(['--dns-port', '0', '--', 'a'])).toMatch(/--dns-port wants a port/);
    expect(parseBridgeArgs(['--', 'a', '--tcp'])).toEqual({ tcp: [], argv: ['a', '--tcp'] });
  });
});

describe('bridgeBwrapArgs', () => {
  it('mounts the bridge directory and, with DNS, a resolv.conf naming the bridge', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ag-bwrap-'));
    expect(bridgeBwrapArgs(dir, { dns: false })).toEqual([
      '--tmpfs',
      '/run',
      '--ro-bind',
      dir,
      '/run/agentguard',
    ]);
    expect(existsSync(join(dir, 'resolv.conf'))).toBe(false);
    expect(bridgeBwrapArgs(dir, { dns: true })).toEqual([
      '--tmpfs',
      '/run',
      '--ro-bind',
      dir,
      '/run/agentguard',
      '--ro-bind',
      join(dir, 'resolv.conf'),
      '/etc/resolv.conf',
    ]);
    expect(readFileSync(join(dir, 'resolv.conf'), 'utf8')).toMatch(/^nameserver 127\.0\.0\.1\n/);
    await rm(dir, { recursive: true });
  });
});
