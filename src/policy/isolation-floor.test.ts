import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import type { HostPolicy } from './host-policy.js';
import { enforceFloor, floorBreaches, type InputReach, type IsolationFacts } from './isolation-floor.js';

const isolated: IsolationFacts = {
  file: '/pr/.agentguard.yaml',
  sandbox: { kind: 'bwrap', onHost: false },
  tracer: 'ebpf',
  network: 'allowlist',
  setupCommand: true,
};
const floor = { input: "queue job 'j1'", allowFlag: '--allow-below-floor' };
/** The host policy of a host without one: nothing listed. */
const NONE: HostPolicy = {
  file: '/etc/agentguard/host-policy.yaml',
  host_paths: [],
  mirrors: [],
  network_hosts: [],
  container_images: [],
  agent_env: [],
  model_relays: [],
};

describe('isolation floor', () => {
  it('lets an isolated, traced run through, setup_command included', () => {
    expect(floorBreaches(isolated)).toEqual([]);
    expect(() => enforceFloor(floor, isolated)).not.toThrow();
  });

  it('names every field that falls below it', () => {
    const low = { ...isolated, sandbox: { kind: 'local', onHost: true }, tracer: 'off', network: 'host' };
    expect(floorBreaches(low).map((b) => b.field)).toEqual([
      'sandbox',
      'setup_command',
      'tracer',
      'network.mode',
    ]);
  });

  it('refuses with the input, the file, the field and the operator flag in each sentence', () => {
    const low = { ...isolated, tracer: 'off' };
    let error: unknown;
    try {
      enforceFloor(floor, low);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain("/pr/.agentguard.yaml: field 'tracer'");
    expect(message).toContain("queue job 'j1'");
    expect(message).toContain('--allow-below-floor');
  });

  it('is no floor at all when the operator set none (their own input)', () => {
    expect(() => enforceFloor(undefined, { ...isolated, tracer: 'off' })).not.toThrow();
  });
});

describe('isolation floor: what a config asks the sandbox to show', () => {
  const root = '/packs/p';
  const mount = (p: string, writable = false) => ({ path: p, writable, field: 'sandbox.mounts[0]' });
  const reach = (r: Partial<InputReach>): IsolationFacts => ({
    ...isolated,
    reach: { mounts: [], caches: [], mirrors: [], allow: [], hosts: {}, env: [], files: [], ...r },
  });

  it('lets read-only paths inside the pack or bundle through', () => {
    expect(floorBreaches(reach({ mounts: [mount('/packs/p/configs/a/data')] }), root, NONE)).toEqual([]);
  });

  it('refuses a path outside it, by .. or by its absolute path, and any writable one', () => {
    for (const p of ['/packs/p/../q', '/srv/data', '/packs/pp'])
      expect(floorBreaches(reach({ mounts: [mount(p)] }), root, NONE).map((b) => b.what)).toEqual([
        `it shows ${p} to the agent, a host folder outside ${root}`,
      ]);
    expect(
      floorBreaches(reach({ mounts: [mount('/packs/p/cache', true)] }), root, NONE).map((b) => b.field),
    ).toEqual(['sandbox.mounts[0]']);
  });

  it('with no folder of its own (a pull request), every host path and every writable one', () => {
    expect(floorBreaches(reach({ mounts: [mount('/srv/data', true)] }), undefined, NONE)).toHaveLength(1);
    const outside = floorBreaches(reach({ mounts: [mount('/root/.ssh')] }), undefined, NONE);
    expect(outside.map((b) => b.allow)).toEqual([`listing /root/.ssh under host_paths in ${NONE.file}`]);
  });

  it("lets through what the operator's host policy lists, and nothing beside it", () => {
    const policy = { ...NONE, host_paths: ['/opt/hostedtoolcache'] };
    const tool = { ...mount('/opt/hostedtoolcache/node/20/x64'), field: 'toolchains[0]' };
    expect(floorBreaches(reach({ mounts: [tool] }), undefined, policy)).toEqual([]);
    for (const p of ['/opt/hostedtoolcache/../secrets', '/opt/hostedtoolcache2', '/opt'])
      expect(floorBreaches(reach({ mounts: [mount(p)] }), undefined, policy)).toHaveLength(1);
    // Listed read-only is not writable.
    expect(floorBreaches(reach({ mounts: [{ ...tool, writable: true }] }), undefined, policy)).toHaveLength(
      1,
    );
  });

  it("judges a link by where it leads: a link inside the input's folder to a host folder is outside", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-floor-'));
    try {
      symlinkSync('/etc', path.join(dir, 'tools'));
      expect(floorBreaches(reach({ mounts: [mount(path.join(dir, 'tools'))] }), dir, NONE)).toHaveLength(1);
      const policy = { ...NONE, host_paths: [dir] };
      expect(
        floorBreaches(reach({ mounts: [mount(path.join(dir, 'tools'))] }), undefined, policy),
      ).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("judges setup's cache folders as folders shown", () => {
    const caches = [{ field: 'setup.dependencies[0].cache', path: '/home/x/.npm' }];
    expect(floorBreaches(reach({ caches }), root, NONE).map((b) => b.field)).toEqual([
      'setup.dependencies[0].cache',
    ]);
    expect(
      floorBreaches(
        reach({ caches: [{ field: 'setup.dependencies[0].cache', path: '/packs/p/npm-cache' }] }),
        root,
        NONE,
      ),
    ).toEqual([]);
  });
});

describe('isolation floor: mirrors, network and the container runtime', () => {
  const reach = (r: Partial<InputReach>): IsolationFacts => ({
    ...isolated,
    reach: { mounts: [], caches: [], mirrors: [], allow: [], hosts: {}, env: [], files: [], ...r },
  });
  const mirror = (url: string) => ({ field: 'setup.dependencies[0].mirror', url });

  it('refuses every mirror the host policy does not list, internal or not', () => {
    for (const url of [
      'http://127.0.0.1:6379/',
      'http://169.254.169.254/latest/meta-data/',
      'http://redis:6379/',
      'https://registry.npmjs.org/',
    ])
      expect(floorBreaches(reach({ mirrors: [mirror(url)] }), '/b', NONE).map((b) => b.field)).toEqual([
        'setup.dependencies[0].mirror',
      ]);
  });

  it('lets a listed mirror through by scheme, host, port and path prefix only', () => {
    const policy = { ...NONE, mirrors: ['https://registry.npmjs.org/', 'http://10.0.0.5:3141/root/pypi/'] };
    for (const url of [
      'https://registry.npmjs.org/',
      'https://registry.npmjs.org',
      'http://10.0.0.5:3141/root/pypi/simple/',
    ])
      expect(floorBreaches(reach({ mirrors: [mirror(url)] }), '/b', policy), url).toEqual([]);
    for (const url of [
      'http://registry.npmjs.org/',
      'https://registry.npmjs.org.evil.test/',
      'https://registry.npmjs.org:444/',
      'http://10.0.0.5:3141/root/pypi-other/',
      'http://10.0.0.5:3142/root/pypi/',
    ])
      expect(floorBreaches(reach({ mirrors: [mirror(url)] }), '/b', policy), url).toHaveLength(1);
  });

  it('refuses network entries naming internal hosts, in every spelling, and *', () => {
    const internal = [
      '127.0.0.1',
      '127.1.2.3:6379',
      'localhost',
      'LOCALHOST.',
      'db.localhost',
      'redis',
      'redis:6379',
      '169.254.169.254',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1:80',
      '100.64.0.1',
      '0.0.0.0',
      '[::1]',
      '[::ffff:127.0.0.1]:6379',
      '[fe80::1]',
      '[fd00::1]',
      'printer.local',
      'vault.internal',
      '*',
    ];
    for (const entry of internal)
      expect(floorBreaches(reach({ allow: [entry] }), '/b', NONE), entry).toHaveLength(1);
    for (const entry of ['api.example.com', '*.github.com:443', '93.184.216.34', '[2606:4700::1111]'])
      expect(floorBreaches(reach({ allow: [entry] }), '/b', NONE), entry).toEqual([]);
  });

  it('refuses a fake host routed to a local address unless the host policy lists it', () => {
    const hosts = { 'api.allowed.test': '127.0.0.1:6379' };
    expect(floorBreaches(reach({ hosts }), '/b', NONE).map((b) => b.field)).toEqual([
      'network.hosts.api.allowed.test',
    ]);
    expect(floorBreaches(reach({ hosts }), '/b', { ...NONE, network_hosts: ['127.0.0.1:6379'] })).toEqual([]);
    expect(floorBreaches(reach({ hosts }), '/b', { ...NONE, network_hosts: ['127.0.0.1'] })).toEqual([]);
    expect(floorBreaches(reach({ hosts }), '/b', { ...NONE, network_hosts: ['127.0.0.1:9'] })).toHaveLength(
      1,
    );
  });

  it('refuses a container runtime, a host program the engine would run', () => {
    const b = floorBreaches(reach({ containerRuntime: '/tmp/x/runc' }), '/b', NONE);
    expect(b.map((x) => [x.field, x.allow])).toEqual([['container.runtime', undefined]]);
  });
});

describe("isolation floor: the host's environment", () => {
  const facts = (names: string[]): IsolationFacts => ({
    ...isolated,
    reach: {
      mounts: [],
      caches: [],
      mirrors: [],
      allow: [],
      hosts: {},
      env: names.map((name, i) => ({ field: `agent_environment[${i}]`, name })),
      files: [],
    },
  });

  it("refuses a variable the operator did not allow, by the host policy or the command's flag", () => {
    expect(floorBreaches(facts(['AWS_SECRET_ACCESS_KEY']), '/b', NONE).map((b) => b.field)).toEqual([
      'agent_environment[0]',
    ]);
    expect(
      floorBreaches(facts(['OPENAI_API_KEY']), '/b', { ...NONE, agent_env: ['OPENAI_API_KEY'] }),
    ).toEqual([]);
    expect(floorBreaches(facts(['OPENAI_API_KEY']), '/b', NONE, new Set(['OPENAI_API_KEY']))).toEqual([]);
  });

  it("refuses a model relay unless the host policy pairs its provider with its key's variable", () => {
    const relay = (provider: string, key_env: string): IsolationFacts => ({
      ...facts([]),
      reach: { ...(facts([]).reach as InputReach), relay: { provider, key_env } },
    });
    const policy = {
      ...NONE,
      model_relays: [{ provider: 'https://api.anthropic.com', key_env: 'ANTHROPIC_API_KEY' }],
    };
    const fields = (f: IsolationFacts, p: HostPolicy) => floorBreaches(f, '/b', p).map((b) => b.field);
    expect(fields(relay('https://api.anthropic.com', 'ANTHROPIC_API_KEY'), NONE)).toEqual(['model_relay']);
    expect(fields(relay('https://api.anthropic.com/', 'ANTHROPIC_API_KEY'), policy)).toEqual([]);
    // The next spellings: the listed key to another host (or port, or a look-alike), another key to the listed host.
    for (const [provider, key] of [
      ['https://attacker.example', 'ANTHROPIC_API_KEY'],
      ['https://api.anthropic.com:8443', 'ANTHROPIC_API_KEY'],
      ['https://api.anthropic.com.attacker.example', 'ANTHROPIC_API_KEY'],
      ['https://api.anthropic.com', 'OPENAI_API_KEY'],
    ] as const)
      expect(fields(relay(provider, key), policy), `${provider} ${key}`).toEqual(['model_relay']);
    const [breach] = floorBreaches(relay('https://attacker.example', 'ANTHROPIC_API_KEY'), '/b', policy);
    expect(breach?.allow).toMatch(/model_relays/);
  });
});
