import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from './load.js';
import { configDirPath, type MountSources, resolveMounts } from './mounts.js';

const root = mkdtempSync(path.join(tmpdir(), 'agentguard-mounts-'));
const home = path.join(root, 'home');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pyenv = path.join(home, '.pyenv/versions/3.12.4');
mkdirSync(pyenv, { recursive: true });
const configDir = path.join(root, 'suite', 'case');
mkdirSync(path.join(configDir, 'repo'), { recursive: true });
mkdirSync(path.join(configDir, 'data'));
writeFileSync(path.join(root, 'suite', 'agent.sh'), 'true\n');
const output = path.join(root, 'out');
mkdirSync(path.join(output, 'runs', 'r1'), { recursive: true });
writeFileSync(path.join(output, 'history.db'), '');

function resolve(src: Partial<MountSources>) {
  const found: string[] = [];
  const mounts = resolveMounts(
    {
      sandbox: undefined,
      toolchains: [],
      commands: [],
      workdirIsConfigDir: false,
      configDir,
      home,
      ...src,
    },
    (field, message) => found.push(`${field}: ${message}`),
  );
  return { mounts, found };
}

describe('resolveMounts', () => {
  it('names sandbox.mounts (relative or absolute, read-only unless writable), toolchains and {config_dir} arguments', () => {
    const { mounts, found } = resolve({
      sandbox: { mounts: ['data', { path: pyenv, writable: true }] },
      toolchains: [pyenv],
      commands: [['agent_command', ['sh', '-c', '. "$1"', '{config_dir}', '{config_dir}/../agent.sh']]],
    });
    expect(found).toEqual([]);
    expect(mounts).toEqual([
      { path: path.join(configDir, 'data'), writable: false, field: 'sandbox.mounts[0]' },
      { path: pyenv, writable: true, field: 'sandbox.mounts[1]' },
      { path: pyenv, writable: false, field: 'toolchains[0]' },
      { path: configDir, writable: false, field: 'agent_command[3]' },
      { path: path.join(root, 'suite', 'agent.sh'), writable: false, field: 'agent_command[4]' },
    ]);
  });

  it('refuses /, a system folder, what holds HOME, an output folder, a missing path and a relative toolchain', () => {
    const { mounts, found } = resolve({
      sandbox: {
        mounts: ['/', '/etc/ssl', home, path.dirname(home), path.join(output, 'runs/r1'), 'missing'],
      },
      toolchains: ['venv', '/usr'],
    });
    expect(mounts).toEqual([]);
    expect(found).toEqual([
      "toolchains[0]: 'venv' is not an absolute path",
      'sandbox.mounts[0]: / is the root folder, which the sandbox already shows or must not show whole',
      'sandbox.mounts[1]: /etc/ssl is inside the system folder /etc, which the sandbox already shows or must not show whole',
      `sandbox.mounts[2]: ${home} holds your HOME (${home}), whose credentials the sandbox hides`,
      `sandbox.mounts[3]: ${path.dirname(home)} holds your HOME (${home}), whose credentials the sandbox hides`,
      `sandbox.mounts[4]: ${path.join(output, 'runs/r1')} is inside the agentguard output folder ${output}, which holds other runs' evidence and canaries`,
      `sandbox.mounts[5]: ${path.join(configDir, 'missing')} does not exist`,
      'toolchains[1]: /usr is the system folder /usr, which the sandbox already shows or must not show whole',
    ]);
  });

  it('reads {config_dir} alone or as a prefix, nothing else', () => {
    expect(configDirPath('{config_dir}', '/a/b')).toBe('/a/b');
    expect(configDirPath('{config_dir}/../x.sh', '/a/b')).toBe('/a/x.sh');
    expect(configDirPath('x{config_dir}', '/a/b')).toBeNull();
    expect(configDirPath('{config_dir}x', '/a/b')).toBeNull();
  });
});

describe('a config with sandbox.mounts loads', () => {
  const write = (name: string, value: Record<string, unknown>) => {
    const file = path.join(configDir, name);
    writeFileSync(
      file,
      stringify({ name: 'm', task: { prompt: 'p' }, repo: 'repo', test_command: ['true'], ...value }),
    );
    return loadConfig(file);
  };

  it('keeps the kind, resolves the mounts and writes out {config_dir} in the tests', () => {
    const r = write('ok.yaml', {
      sandbox: { kind: 'bwrap', mounts: ['data'] },
      test_command: ['sh', '{config_dir}/../agent.sh'],
    });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.sandbox).toBe('bwrap');
    expect(r.value.test_command).toEqual(['sh', path.join(root, 'suite', 'agent.sh')]);
    expect(r.value.mounts.map((m) => m.field)).toEqual(['sandbox.mounts[0]', 'test_command[1]']);
  });

  it('names the file, the field and the fix for a bad mount or key', () => {
    const r = write('bad.yaml', { sandbox: { mounts: [{ path: 'nowhere', writable: true }] } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues[0]).toMatchObject({ file: path.join(configDir, 'bad.yaml'), field: 'sandbox.mounts[0]' });
    expect(r.issues[0]?.fix).toMatch(/create it, or fix the path/);
    const typo = write('typo.yaml', { sandbox: { mount: ['data'] } });
    expect(typo.ok).toBe(false);
  });
});
