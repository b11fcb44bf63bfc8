import { spawn } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { SetupError } from '../errors.js';
import { gitEnv } from './git.js';

/** Quote a path for git fast-import (C style), so any byte in a file name survives. */
export function quotePath(p: string): string {
  let out = '"';
  for (const byte of Buffer.from(p, 'utf8')) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += '\\\\';
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

/**
 * Commit every file of `workTree` (except `.git` folders and the `skip` set) as the single commit
 * of `refs/heads/main`, through one `git fast-import` stream. It writes one pack instead of one
 * loose object per file, which on these machines is the difference between ~2 s and ~0.2 s for a
 * 2,000-file repository.
 */
export async function commitTree(opts: {
  gitDir: string;
  workTree: string;
  skip: ReadonlySet<string>;
}): Promise<void> {
  const child = spawn('git', ['fast-import', '--quiet', '--done'], {
    env: gitEnv({ gitDir: opts.gitDir, workTree: opts.workTree }),
    cwd: opts.workTree,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const write = (chunk: string | Buffer) =>
    child.stdin.write(chunk)
      ? Promise.resolve()
      : new Promise<void>((r) => child.stdin.once('drain', () => r()));
  child.stdin.on('error', () => {
    // fast-import died; its exit status and stderr say why
  });

  await write('commit refs/heads/main\ncommitter agentguard <agentguard@localhost> 946684800 +0000\n');
  await write('data 19\nagentguard baseline\n');
  const walk = async (dir: string): Promise<void> => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git') continue;
      const abs = path.join(dir, name);
      const rel = path.relative(opts.workTree, abs);
      if (opts.skip.has(rel)) continue;
      const st = lstatSync(abs);
      if (st.isDirectory()) {
        await walk(abs);
        continue;
      }
      let mode: string;
      let data: Buffer;
      if (st.isSymbolicLink()) {
        mode = '120000';
        data = Buffer.from(readlinkSync(abs));
      } else if (st.isFile()) {
        mode = st.mode & 0o111 ? '100755' : '100644';
        data = readFileSync(abs);
      } else {
        continue;
      }
      await write(`M ${mode} inline ${quotePath(rel)}\ndata ${data.length}\n`);
      await write(data);
      await write('\n');
    }
  };
  await walk(opts.workTree);
  await write('\ndone\n');
  child.stdin.end();
  const code = await exited.catch((err: Error) => {
    throw new SetupError(`git fast-import could not run: ${err.message}. Fix: apt-get install -y git.`);
  });
  if (code !== 0)
    throw new SetupError(`git fast-import failed while committing the baseline: ${stderr.trim()}`);
}
