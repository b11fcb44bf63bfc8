import { chmodSync, chownSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import {
  HOST_POLICY_FILE,
  hostPolicyFile,
  internalHost,
  mirrorAllowed,
  readHostPolicy,
} from './host-policy.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-host-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;

function policyAt(name: string, text: string, mode = 0o644): NodeJS.ProcessEnv {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, mode);
  return { AGENTGUARD_HOST_POLICY: file };
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('host policy', () => {
  it('is /etc/agentguard/host-policy.yaml unless the operator names another; none there is an empty one', () => {
    expect(hostPolicyFile({})).toBe(HOST_POLICY_FILE);
    const env = { AGENTGUARD_HOST_POLICY: path.join(dir, 'missing.yaml') };
    expect(readHostPolicy(env)).toEqual({
      file: path.join(dir, 'missing.yaml'),
      host_paths: [],
      mirrors: [],
      network_hosts: [],
      container_images: [],
      agent_env: [],
      model_relays: [],
    });
  });

  it('reads the lists the operator allows', () => {
    const env = policyAt(
      'ok.yaml',
      'host_paths: [/opt/hostedtoolcache]\nmirrors: ["https://registry.npmjs.org/"]\nnetwork_hosts: ["127.0.0.1:9"]\nagent_env: [ANTHROPIC_API_KEY]\n',
    );
    expect(readHostPolicy(env)).toMatchObject({
      host_paths: ['/opt/hostedtoolcache'],
      mirrors: ['https://registry.npmjs.org/'],
      network_hosts: ['127.0.0.1:9'],
      agent_env: ['ANTHROPIC_API_KEY'],
    });
  });

  it('names the file, the field and the fix for a bad value or an unknown key', () => {
    expect(errorOf(() => readHostPolicy(policyAt('rel.yaml', 'host_paths: [opt/tools]\n')))).toMatch(
      /rel\.yaml: field 'host_paths\[0\]': must be an absolute path/,
    );
    expect(errorOf(() => readHostPolicy(policyAt('scheme.yaml', 'mirrors: ["file:///etc/"]\n')))).toMatch(
      /scheme\.yaml: field 'mirrors\[0\]'/,
    );
    expect(errorOf(() => readHostPolicy(policyAt('key.yaml', 'host_path: [/opt]\n')))).toMatch(
      /key\.yaml: .*host_path/,
    );
  });

  it('refuses a file others may write, or a link, as a way to lower the floor', () => {
    expect(errorOf(() => readHostPolicy(policyAt('open.yaml', 'host_paths: [/]\n', 0o666)))).toMatch(
      /may be written by users other than its owner.*Fix: make it a regular file owned by root/,
    );
    const link = path.join(dir, 'link.yaml');
    symlinkSync(path.join(dir, 'ok.yaml'), link);
    expect(errorOf(() => readHostPolicy({ AGENTGUARD_HOST_POLICY: link }))).toContain(
      'is not a regular file',
    );
  });

  it.skipIf(!isRoot)('refuses a file owned by another user', () => {
    const env = policyAt('other.yaml', 'host_paths: [/]\n');
    chownSync(env.AGENTGUARD_HOST_POLICY as string, 65534, 65534);
    expect(errorOf(() => readHostPolicy(env))).toContain('is owned by uid 65534');
  });
});

describe('internal hosts and mirrors', () => {
  it('sees internal addresses in their other spellings', () => {
    for (const h of [
      '2130706433',
      '0x7f000001',
      '[::ffff:7f00:1]',
      '[::127.0.0.1]',
      '[64:ff9b::a9fe:a9fe]',
      'metadata.google.internal',
    ])
      expect(internalHost(h), h).not.toBeNull();
    expect(internalHost('example.com')).toBeNull();
  });

  it('matches a mirror by its origin and path, never by a longer host or a user part', () => {
    expect(mirrorAllowed('https://registry.npmjs.org/pkg', ['https://registry.npmjs.org/'])).toBe(true);
    expect(mirrorAllowed('https://registry.npmjs.org@127.0.0.1/', ['https://registry.npmjs.org/'])).toBe(
      false,
    );
    expect(mirrorAllowed('not a url', ['https://registry.npmjs.org/'])).toBe(false);
  });
});
