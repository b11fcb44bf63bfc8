import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, tempDir } from './exec-cli.js';

/*
 * `agentguard init` on a clone someone else wrote (issue 35): a package.json committed as a link to
 * /dev/zero once grew init to 17 GB in 30 s, and a FIFO hung it past SIGTERM. Each case is a real
 * git repository cloned with `git clone`; init must refuse the file in one sentence, exit 2, at once.
 */

const work = tempDir('ag-init-hostile-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

/** A repository whose files `plant` makes (links are committed as links), cloned fresh. */
function hostileClone(name: string, plant: (dir: string) => void): string {
  const origin = path.join(work, `${name}-origin`);
  mkdirSync(origin, { recursive: true });
  writeFileSync(path.join(origin, 'README.md'), 'a project\n');
  plant(origin);
  git(origin, 'init', '-q');
  git(origin, 'add', '-A');
  git(origin, 'commit', '-qm', 'initial');
  const clone = path.join(work, name);
  git(work, 'clone', '-q', origin, clone);
  return clone;
}

function init(dir: string, ...args: string[]) {
  // Killed (SIGKILL: a read of a FIFO outlived SIGTERM) if it hangs, so a failure leaves nothing behind.
  return spawnSync(process.execPath, [CLI, 'init', ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 20_000,
    killSignal: 'SIGKILL',
  });
}

function initRefuses(dir: string, file: string, why: RegExp, ...args: string[]): void {
  const started = Date.now();
  const r = init(dir, ...args);
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(path.join(dir, file));
  expect(lines[0]).toMatch(why);
  expect(lines[0]).toContain('Fix:');
  expect(existsSync(path.join(dir, 'agentguard.yaml'))).toBe(false);
}

describe('agentguard init on a hostile clone', () => {
  it('package.json committed as a link to /dev/zero', () => {
    const dir = hostileClone('zero', (d) => symlinkSync('/dev/zero', path.join(d, 'package.json')));
    initRefuses(dir, 'package.json', /is a symbolic link, which agentguard does not follow here/);
  }, 30_000);

  it('a chain of links, each harmless-looking, ending at /etc/passwd', () => {
    const dir = hostileClone('chain', (d) => {
      mkdirSync(path.join(d, 'config'));
      symlinkSync('config/pyproject.toml', path.join(d, 'pyproject.toml'));
      symlinkSync('../shared.toml', path.join(d, 'config', 'pyproject.toml'));
      symlinkSync('/etc/passwd', path.join(d, 'shared.toml'));
    });
    initRefuses(dir, 'pyproject.toml', /is a symbolic link/);
  }, 30_000);

  it('a FIFO where the Makefile should be (made after the clone: git cannot carry one)', () => {
    const dir = hostileClone('fifo', () => undefined);
    spawnSync('mkfifo', [path.join(dir, 'Makefile')]);
    initRefuses(dir, 'Makefile', /is a FIFO \(named pipe\), not a regular file/);
  }, 30_000);

  it('a package.json over the size cap', () => {
    const dir = hostileClone('huge', (d) =>
      writeFileSync(path.join(d, 'package.json'), `{"pad": "${'x'.repeat(2 * 1024 * 1024)}"}\n`),
    );
    initRefuses(dir, 'package.json', /is larger than the 1 MiB/);
  }, 30_000);

  it('agentguard.yaml.tmp committed as a link to a file outside: init writes its own file, never through the link', () => {
    const victim = path.join(work, 'victim.txt');
    writeFileSync(victim, 'the victim file\n');
    const dir = hostileClone('tmp-link', (d) => symlinkSync(victim, path.join(d, 'agentguard.yaml.tmp')));
    const r = init(dir);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('the victim file\n');
    expect(lstatSync(path.join(dir, 'agentguard.yaml')).isFile()).toBe(true);
    expect(readFileSync(path.join(dir, 'agentguard.yaml'), 'utf8')).toContain('test_command');
  }, 30_000);

  it('--ci with .github/workflows committed as a link out: refused before anything is written', () => {
    const elsewhere = path.join(work, 'elsewhere');
    mkdirSync(elsewhere);
    const dir = hostileClone('workflows-link', (d) => {
      mkdirSync(path.join(d, '.github'));
      symlinkSync(elsewhere, path.join(d, '.github', 'workflows'));
    });
    initRefuses(
      dir,
      '.github/workflows',
      /is a symbolic link, and init writes only into real folders/,
      '--ci',
    );
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(existsSync(path.join(dir, '.agentguard.yaml'))).toBe(false);
  }, 30_000);
});
