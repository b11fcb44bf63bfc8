import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatIssue } from '../errors.js';
import { loadConfig } from './load.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-setup-schema-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(path.join(dir, 'repo/web'), { recursive: true });
mkdirSync(path.join(dir, 'npm-cache'));
mkdirSync(path.join(dir, 'wheels'));
writeFileSync(path.join(dir, 'repo/web/package-lock.json'), '{}');
writeFileSync(path.join(dir, 'repo/requirements.txt'), 'tinywheel==1.0\n');

const BASE = 'name: t\ntask: {prompt: p}\nrepo: repo\ntest_command: [make, test]\n';

function load(setup: string) {
  return loadConfig(write(`${BASE}setup:\n  dependencies:\n${setup}`));
}
function write(text: string): string {
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, text);
  return file;
}
function issues(setup: string) {
  const result = load(setup);
  if (result.ok) throw new Error('the config loaded');
  return result.issues.map((i) => ({ field: i.field, message: i.message, fix: i.fix }));
}

describe('setup.dependencies', () => {
  it('loads npm and pip entries with their defaults, caches made absolute', () => {
    const result = load(
      '    - {manager: npm, lockfile: web/package-lock.json, cache: npm-cache}\n' +
        '    - {manager: pip, mirror: "https://pypi.example.com/simple/"}\n',
    );
    expect(result.ok && result.value.setup).toEqual({
      dependencies: [
        {
          manager: 'npm',
          lockfile: 'web/package-lock.json',
          cache: path.join(dir, 'npm-cache'),
          scripts: false,
        },
        {
          manager: 'pip',
          requirements: 'requirements.txt',
          target: '.venv',
          mirror: 'https://pypi.example.com/simple/',
          scripts: false,
        },
      ],
    });
  });

  it('needs exactly one of cache and mirror', () => {
    expect(issues('    - {manager: pip, cache: wheels, mirror: "https://x.example/"}\n')).toEqual([
      {
        field: 'setup.dependencies[0]',
        message: 'gives both cache and mirror; an install reads from one source',
        fix: 'keep one: cache (a folder relative to the config) or mirror (a registry URL)',
      },
    ]);
    expect(issues('    - {manager: pip}\n')[0]).toMatchObject({
      field: 'setup.dependencies[0]',
      message: 'needs where the packages come from: cache or mirror',
    });
  });

  it('names a manager it does not know, with the ones it does', () => {
    const [issue, ...rest] = issues('    - {manager: deno, cache: npm-cache}\n');
    expect(rest).toEqual([]);
    expect(issue?.field).toBe('setup.dependencies[0].manager');
    expect(issue?.message).toBe('must be one of "npm", "pnpm", "yarn", "bun", "pip"');
  });

  it('pnpm and yarn: their own lockfile, from a mirror only', () => {
    writeFileSync(path.join(dir, 'repo/pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
    writeFileSync(path.join(dir, 'repo/web/yarn.lock'), '# yarn lockfile v1\n');
    const result = load(
      '    - {manager: pnpm, mirror: "https://registry.npmjs.org/"}\n' +
        '    - {manager: yarn, lockfile: web/yarn.lock, mirror: "https://registry.npmjs.org/"}\n',
    );
    expect(result.ok && result.value.setup?.dependencies).toEqual([
      { manager: 'pnpm', lockfile: 'pnpm-lock.yaml', mirror: 'https://registry.npmjs.org/', scripts: false },
      { manager: 'yarn', lockfile: 'web/yarn.lock', mirror: 'https://registry.npmjs.org/', scripts: false },
    ]);
    expect(
      issues('    - {manager: pnpm, lockfile: web/package-lock.json, mirror: "https://r.example/"}\n'),
    ).toEqual([
      {
        field: 'setup.dependencies[0].lockfile',
        message: 'must name a pnpm-lock.yaml (pnpm installs frozen from nothing else)',
        fix: 'point it at the pnpm-lock.yaml beside the package.json to install',
      },
    ]);
    expect(issues('    - {manager: yarn, lockfile: web/yarn.lock, cache: npm-cache}\n')).toEqual([
      {
        field: 'setup.dependencies[0].cache',
        message: 'yarn installs from a mirror here; a cache folder is read for npm and pip only',
        fix: 'give mirror: the registry to install from (e.g. https://registry.npmjs.org/)',
      },
    ]);
    expect(issues('    - {manager: bun, lockfile: web/bun.lockb, cache: npm-cache}\n')[0]).toMatchObject({
      field: 'setup.dependencies[0].cache',
      message: 'bun installs from a mirror here; a cache folder is read for npm and pip only',
    });
    expect(
      issues('    - {manager: bun, lockfile: web/yarn.lock, mirror: "https://r.example/"}\n')[0],
    ).toMatchObject({
      field: 'setup.dependencies[0].lockfile',
      message: 'must name a bun.lock or bun.lockb (bun installs frozen from nothing else)',
    });
    expect(issues('    - {manager: yarn, mirror: "https://registry.npmjs.org/"}\n')).toEqual([
      {
        field: 'setup.dependencies[0].lockfile',
        message: `yarn.lock is not a file in the template ${path.join(dir, 'repo')}`,
        fix: 'commit the yarn.lock into the task repository, or correct the path (relative to the workspace)',
      },
    ]);
  });

  it("pip over a pyproject: the lockfile's pins and groups with it only, each file in the template", () => {
    writeFileSync(path.join(dir, 'repo/pyproject.toml'), '[project]\ndependencies = ["tinywheel"]\n');
    writeFileSync(path.join(dir, 'repo/uv.lock'), 'version = 1\n');
    const result = load(
      '    - {manager: pip, pyproject: pyproject.toml, lockfile: uv.lock, groups: [dev, test], cache: wheels}\n',
    );
    expect(result.ok && result.value.setup?.dependencies).toEqual([
      {
        manager: 'pip',
        pyproject: 'pyproject.toml',
        lockfile: 'uv.lock',
        groups: ['dev', 'test'],
        target: '.venv',
        cache: path.join(dir, 'wheels'),
        scripts: false,
      },
    ]);
    expect(
      issues(
        '    - {manager: pip, pyproject: pyproject.toml, requirements: requirements.txt, cache: wheels}\n',
      ),
    ).toEqual([
      {
        field: 'setup.dependencies[0].pyproject',
        message: 'gives both requirements and pyproject; a pip entry installs one of them',
        fix: 'keep one, or write a second entry for the other',
      },
    ]);
    expect(
      issues('    - {manager: pip, lockfile: uv.lock, groups: [dev], cache: wheels}\n').map((i) => i.field),
    ).toEqual(['setup.dependencies[0].lockfile', 'setup.dependencies[0].groups']);
    expect(
      issues('    - {manager: pip, pyproject: pyproject.toml, lockfile: Pipfile.lock, cache: wheels}\n')[0],
    ).toMatchObject({
      field: 'setup.dependencies[0].lockfile',
      message: 'must name a uv.lock, poetry.lock, pdm.lock',
    });
    expect(
      issues(
        '    - {manager: pip, pyproject: pyproject.toml, groups: ["--index-url=x"], cache: wheels}\n',
      )[0],
    ).toMatchObject({
      field: 'setup.dependencies[0].groups[0]',
    });
    expect(
      issues('    - {manager: pip, pyproject: pyproject.toml, lockfile: poetry.lock, cache: wheels}\n'),
    ).toEqual([
      {
        field: 'setup.dependencies[0].lockfile',
        message: `poetry.lock is not a file in the template ${path.join(dir, 'repo')}`,
        fix: 'commit the poetry.lock into the task repository, or correct the path (relative to the workspace)',
      },
    ]);
  });

  it('suggests the key a typo meant, per manager', () => {
    const result = load('    - {manager: pip, cache: wheels, requirments: requirements.txt}\n');
    expect(result.ok).toBe(false);
    const [issue] = result.ok ? [] : result.issues;
    expect(issue).toMatchObject({ field: 'setup.dependencies[0].requirments', suggestion: 'requirements' });
    expect(formatIssue(issue as never)).toMatch(/Fix: did you mean 'requirements'\?/);
  });

  it('refuses workspace paths that leave the workspace, and a lockfile npm ci cannot use', () => {
    expect(issues('    - {manager: npm, lockfile: ../package-lock.json, cache: npm-cache}\n')).toEqual([
      {
        field: 'setup.dependencies[0].lockfile',
        message: "'../package-lock.json' climbs out of the workspace with '..'",
        fix: "write it relative to the workspace root, without '..'",
      },
    ]);
    expect(issues('    - {manager: pip, target: /opt/venv, cache: wheels}\n')[0]).toMatchObject({
      field: 'setup.dependencies[0].target',
      message: "'/opt/venv' is an absolute path, but this one is read inside the workspace",
    });
    expect(issues('    - {manager: npm, lockfile: yarn.lock, cache: npm-cache}\n')[0]).toMatchObject({
      field: 'setup.dependencies[0].lockfile',
      fix: 'point it at the package-lock.json beside the package.json to install',
    });
  });

  it('refuses a mirror that is not an http(s) URL or carries credentials', () => {
    expect(
      issues('    - {manager: npm, lockfile: web/package-lock.json, mirror: "ftp://m.example/"}\n'),
    ).toEqual([
      {
        field: 'setup.dependencies[0].mirror',
        message: "'ftp://m.example/' is a ftp: URL; a mirror is reached over http or https",
        fix: 'give an http:// or https:// address',
      },
    ]);
    expect(issues('    - {manager: pip, mirror: "https://user:pw@m.example/simple/"}\n')[0]?.message).toBe(
      'carries credentials, which would be written into the run evidence',
    );
    expect(issues('    - {manager: pip, mirror: not a url}\n')[0]?.message).toBe("'not a url' is not a URL");
  });

  it('names a missing cache folder and a lockfile the template lacks, each with its fix', () => {
    expect(issues('    - {manager: npm, cache: no-such-cache}\n')).toEqual([
      {
        field: 'setup.dependencies[0].lockfile',
        message: `package-lock.json is not a file in the template ${path.join(dir, 'repo')}`,
        fix: 'commit the package-lock.json into the task repository, or correct the path (relative to the workspace)',
      },
      {
        field: 'setup.dependencies[0].cache',
        message: `folder ${path.join(dir, 'no-such-cache')} does not exist`,
        fix: `fill it with \`npm cache add <package> --cache ${path.join(dir, 'no-such-cache')}\`, or correct the path (relative to the config)`,
      },
    ]);
  });

  it('an empty list is an error, not a silent no-op', () => {
    expect(loadConfig(write(`${BASE}setup: {dependencies: []}\n`))).toMatchObject({
      ok: false,
      issues: [{ field: 'setup.dependencies' }],
    });
  });
});
