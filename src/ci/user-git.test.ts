import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { userGit } from './user-git.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

describe("git on a pull request's checkout", () => {
  it('runs no driver its attributes select, whatever the config defines, a name with = in it included', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-user-git-'));
    dirs.push(dir);
    git(dir, 'init', '-q');
    const marker = (n: string) => path.join(dir, `.git/ran-${n}`);
    // The repository's own config defines the drivers (as `git lfs install --local` does); the
    // checkout's .gitattributes selects them. `x=y` is a driver name a `-c key=value` would split.
    for (const [key, value] of [
      ['filter.pwn.process', `touch ${marker('process')}`],
      ['filter.pwn.clean', `touch ${marker('clean')}; cat`],
      ['filter.x=y.clean', `touch ${marker('eq')}; cat`],
      ['diff.pwn.textconv', `touch ${marker('textconv')}; cat`],
    ] as const)
      git(dir, 'config', key, value);
    writeFileSync(path.join(dir, '.gitattributes'), '*.a filter=pwn diff=pwn\n*.b filter=x=y\n');
    writeFileSync(path.join(dir, 'f.a'), 'a\n');
    writeFileSync(path.join(dir, 'f.b'), 'b\n');
    // Set up with the drivers emptied (GIT_CONFIG_KEY_n: a `-c` cannot name `x=y`), so no marker is left yet.
    const off = ['filter.pwn.process', 'filter.pwn.clean', 'filter.x=y.clean', 'diff.pwn.textconv'];
    const env = {
      ...process.env,
      GIT_CONFIG_COUNT: String(off.length),
      ...Object.fromEntries(
        off.flatMap((k, i) => [
          [`GIT_CONFIG_KEY_${i}`, k],
          [`GIT_CONFIG_VALUE_${i}`, ''],
        ]),
      ),
    };
    for (const args of [
      ['add', '-A'],
      ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x'],
    ])
      expect(spawnSync('git', args, { cwd: dir, env }).status).toBe(0);
    for (const n of ['process', 'clean', 'eq', 'textconv']) expect(existsSync(marker(n)), n).toBe(false);
    // Racily clean (changed after the index was written, same size): status re-hashes them through their clean filter.
    const later = new Date(Date.now() + 5000);
    for (const f of ['f.a', 'f.b']) utimesSync(path.join(dir, f), later, later);
    const status = userGit(dir, ['status', '--porcelain', '-z', '--untracked-files=normal']);
    expect(status.ok, status.stderr).toBe(true);
    for (const n of ['process', 'clean', 'eq', 'textconv']) expect(existsSync(marker(n)), n).toBe(false);
    // The same status without agentguard's settings runs them: the check above can fail.
    spawnSync('git', ['status', '--porcelain'], { cwd: dir });
    expect(existsSync(marker('process'))).toBe(true);
  });
});
