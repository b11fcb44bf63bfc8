import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, execCli, tempDir } from './exec-cli.js';

/*
 * ci's history index sits in the checkout's output folder, which the pull request's leftover
 * processes can reach. SQLite opens a database (and its WAL and journal) by a path it resolves
 * itself, so the index is never opened there: while its row is written, no file of the output
 * folder is open, and a swap of the folder for a link at that moment writes nothing through it.
 */

const work = tempDir('ag-ci-history-');
const home = path.join(work, 'home');
mkdirSync(home);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

function project(): string {
  const dir = path.join(work, 'project');
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  writeFileSync(path.join(dir, 'src/app.sh'), 'echo app\n');
  writeFileSync(path.join(dir, '.agentguard.yaml'), "test_command: [sh, -c, 'true']\n");
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'base');
  git(dir, 'checkout', '-qb', 'pr');
  writeFileSync(path.join(dir, 'src/app.sh'), 'echo changed\n');
  git(dir, 'commit', '-qam', 'pr');
  return dir;
}

const rows = (db: string) => {
  const h = new Database(db, { readonly: true });
  try {
    return (h.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
  } finally {
    h.close();
  }
};

describe('agentguard ci keeps its history index out of reach while it is open', () => {
  it('has no file of the output folder open while it writes the row, and a swap then writes nothing through the link', async () => {
    const dir = project();
    const out = path.join(dir, '.agentguard');
    const first = await execCli(['ci', '--base', 'main', '--no-tests', '--json'], {
      cwd: dir,
      env: { HOME: home },
    });
    expect(first.code, first.stderr).toBe(0);
    expect(rows(path.join(out, 'history.db'))).toBe(1);

    const victim = path.join(work, 'victim');
    mkdirSync(victim);
    const child = spawn(process.execPath, [CLI, 'ci', '--base', 'main', '--no-tests', '--json'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        AGENTGUARD_TEST_FAULT: 'signal:SIGSTOP:record',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (c) => {
      stderr += c;
    });
    child.stdout?.resume();
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const state = () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.[0];
    for (let i = 0; i < 600 && state() !== 'T'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(state(), stderr).toBe('T');
    // Stopped with the index open for the row: every file it has open is the private copy's.
    const fdDir = `/proc/${child.pid}/fd`;
    const open = readdirSync(fdDir)
      .map((fd) => {
        try {
          return readlinkSync(path.join(fdDir, fd));
        } catch {
          return '';
        }
      })
      .filter((target) => target.includes('history.db'));
    expect(open.length).toBeGreaterThan(0);
    for (const target of open) expect(target.startsWith(`${out}/`), target).toBe(false);
    // What a process the pull request left behind does: the output folder becomes a link elsewhere.
    renameSync(out, path.join(dir, 'moved-away'));
    symlinkSync(victim, out);
    process.kill(child.pid as number, 'SIGCONT');
    expect(await exited, stderr).toBe(0);
    expect(readdirSync(victim)).toEqual([]);
    // The index went back to the folder ci held, with both runs.
    const moved = path.join(dir, 'moved-away/history.db');
    expect(existsSync(`${moved}-wal`)).toBe(false);
    expect(rows(moved)).toBe(2);
    expect(readdirSync(path.join(dir, 'moved-away')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  // Planted after the check, the same is refused by the held descriptor (held-history.test.ts).
  it('refuses a history index that is a link or a fifo, writing nothing through it', async () => {
    const dir = path.join(work, 'project');
    const out = path.join(dir, '.agentguard');
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { mode: 0o755 });
    const target = path.join(work, 'target.db');
    symlinkSync(target, path.join(out, 'history.db'));
    const linked = await execCli(['ci', '--base', 'main', '--no-tests'], { cwd: dir, env: { HOME: home } });
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain(`${out}/history.db is a symlink`);
    expect(existsSync(target)).toBe(false);
    rmSync(path.join(out, 'history.db'));
    spawnSync('mkfifo', [path.join(out, 'history.db')]);
    const fifo = await execCli(['ci', '--base', 'main', '--no-tests'], { cwd: dir, env: { HOME: home } });
    expect(fifo.code).toBe(2);
    expect(fifo.stderr).toContain(`${out}/history.db is not a plain file`);
  }, 60_000);
});
