import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadJobConfig, resolveInside } from './job-config.js';

const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ag-job-config-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = path.join(base, 'bundle');
mkdirSync(path.join(root, 't', 'repo'), { recursive: true });
mkdirSync(path.join(base, 'outside'));
symlinkSync('repo', path.join(root, 't', 'r'));
symlinkSync('../..', path.join(root, 't', 'up'));
symlinkSync('t/up', path.join(root, 'chain'));
symlinkSync(path.join(base, 'outside'), path.join(root, 't', 'abs'));
symlinkSync('loop', path.join(root, 'loop'));
const t = path.join(root, 't');

describe('a path of a queued config judged inside its bundle', () => {
  it('inside, through links that stay inside, and missing parts judged as written', () => {
    expect(resolveInside(root, t, 'repo')).toBe(path.join(t, 'repo'));
    expect(resolveInside(root, t, 'r/x/y')).toBe(path.join(t, 'repo', 'x', 'y'));
    expect(resolveInside(root, t, 'missing/../repo')).toBe(path.join(t, 'repo'));
  });

  it('out of it as written, through a link, a chain of links, an absolute link, or a loop', () => {
    expect(resolveInside(root, t, '../../outside')).toBeNull();
    expect(resolveInside(root, t, '/etc')).toBeNull();
    expect(resolveInside(root, t, 'up/outside')).toBeNull();
    expect(resolveInside(root, root, 'chain/outside')).toBeNull();
    expect(resolveInside(root, t, 'abs')).toBeNull();
    expect(resolveInside(root, root, 'loop')).toBeNull();
  });
});

describe('loadJobConfig', () => {
  const write = (name: string, extra: string, agent = "['true']") => {
    writeFileSync(
      path.join(t, name),
      `name: q\ntask: {prompt: p}\nrepo: repo\ntest_command: ['true']\nagent_command: ${agent}\n${extra}`,
    );
    return name;
  };
  const refusal = (name: string) => {
    try {
      loadJobConfig(root, path.join('t', name), 'job 1');
    } catch (err) {
      return (err as Error).message;
    }
    return 'loaded';
  };

  it('refuses sandbox.mounts and {config_dir} arguments outside the bundle, the same whether they exist', () => {
    const there = refusal(write('m1.yaml', 'sandbox: { mounts: [/etc] }\n'));
    const absent = refusal(write('m2.yaml', 'sandbox: { mounts: [/no/such/folder] }\n'));
    expect(there).toMatch(/field 'sandbox\.mounts\[0\]' names \/etc, outside the job's task bundle/);
    expect(absent.replace('/no/such/folder', '/etc')).toBe(there.replace('m1.yaml', 'm2.yaml'));
    expect(
      refusal(write('m3.yaml', 'sandbox: { mounts: [{ path: ../../outside, writable: true }] }\n')),
    ).toMatch(/field 'sandbox\.mounts\[0\]' names \.\.\/\.\.\/outside/);
    expect(refusal(write('m4.yaml', '', '[sh, "{config_dir}/../../outside/x.sh"]'))).toMatch(
      /field 'agent_command\[1\]' names \.\.\/\.\.\/outside\/x\.sh/,
    );
  });
});
