import { spawn } from 'node:child_process';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { SetupError } from '../errors.js';
import { displayPath, pathKey } from './byte-paths.js';
import { gitEnv } from './git.js';
import { errorCode, type TreeEntry, walkTree } from './walk-tree.js';

/** Quote a name's bytes for git fast-import (C style), so any byte in a file name survives. */
export function quotePath(name: Buffer): string {
  let out = '"';
  for (const byte of name) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += '\\\\';
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

/** The fast-import commands that make `ref` a single root commit; entries follow, then `done`. */
function commitHeader(ref: string): string {
  return `commit ${ref}\ncommitter agentguard <agentguard@localhost> 946684800 +0000\ndata 19\nagentguard baseline\n`;
}

/** One file's `M` command and its inline data, read now (a link's data is its target). */
function fileCommand(entry: TreeEntry): Buffer[] {
  const data =
    entry.mode === '120000' ? readlinkSync(entry.abs, { encoding: 'buffer' }) : readFileSync(entry.abs);
  return [
    Buffer.from(`M ${entry.mode} inline ${quotePath(entry.rel)}\ndata ${data.length}\n`),
    data,
    NEWLINE,
  ];
}
const NEWLINE = Buffer.from('\n');

/**
 * zlib's fastest level for the packs fast-import writes: its default (6) spent most of a baseline's
 * time deflating files that are already compressed (a zero-install repository's committed archives),
 * for packs that live as long as the run.
 */
const FAST_COMPRESSION = ['-c', 'pack.compression=1'];
const DONE = '\ndone\n';

/**
 * Commit every file of `workTree` (except `.git` folders and the `skip` set, names as `pathKey`s) as
 * the single commit of `refs/heads/main` (the baseline). A file of the harness's own copy that
 * cannot be read is a setup failure naming it.
 */
export async function commitTree(opts: {
  gitDir: string;
  workTree: string;
  skip: ReadonlySet<string>;
}): Promise<void> {
  const entries = walkTree(opts.workTree, (rel) => opts.skip.has(pathKey(rel))).entries;
  const committed = await commitEntries({ ...opts, ref: 'refs/heads/main', entries });
  if (!committed.ok) throw new SetupError(`${committed.error}, while committing the baseline`);
  const [first] = committed.unreadable;
  if (first) {
    throw new SetupError(
      `the baseline could not read ${first.path} in ${opts.workTree} (${first.reason}). Fix: make the template's files readable by root.`,
    );
  }
}

/**
 * Commit `entries` (files of `workTree`) as the single root commit of `ref`, replacing it, through one
 * `git fast-import` stream: one pack instead of one loose object per file, which on these machines
 * is the difference between ~2 s and ~0.2 s for a 2,000-file repository. Files are read one at a
 * time as git takes them (memory stays bounded however large the workspace), and a file that
 * vanishes or cannot be read meanwhile is reported, not fatal. git has exited when this returns.
 */
export async function commitEntries(opts: {
  gitDir: string;
  workTree: string;
  ref: string;
  entries: readonly TreeEntry[];
  /** Larger files are reported instead of read whole into memory. */
  maxFileBytes?: number;
}): Promise<{ ok: true; unreadable: { path: string; reason: string }[] } | { ok: false; error: string }> {
  const maxFileBytes = opts.maxFileBytes ?? 512 * 1024 * 1024;
  const unreadable: { path: string; reason: string }[] = [];
  const child = spawn('git', [...FAST_COMPRESSION, 'fast-import', '--quiet', '--done', '--force'], {
    env: gitEnv({ gitDir: opts.gitDir, workTree: opts.workTree }),
    cwd: opts.workTree,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString('utf8')).slice(-16 * 1024);
  });
  let spawnError: Error | null = null;
  child.on('error', (err) => {
    spawnError = err;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  child.stdin.on('error', () => {
    // fast-import died; its exit status and stderr say why
  });
  // Wait for the pipe to take more, or for git to be gone (then nothing more is written).
  const write = (chunk: string | Buffer): Promise<void> | undefined => {
    if (gone || child.stdin.write(chunk)) return undefined;
    return new Promise<void>((resolve) => {
      child.stdin.once('drain', resolve);
      void exited.then(() => resolve());
    });
  };
  try {
    await write(commitHeader(opts.ref));
    for (const entry of opts.entries) {
      if (gone) break;
      let chunks: Buffer[];
      try {
        const size = lstatSync(entry.abs).size;
        if (size > maxFileBytes) {
          unreadable.push({ path: displayPath(entry.rel), reason: `larger than ${maxFileBytes} bytes` });
          continue;
        }
        chunks = fileCommand(entry);
      } catch (err) {
        unreadable.push({ path: displayPath(entry.rel), reason: errorCode(err) });
        continue;
      }
      for (const chunk of chunks) await write(chunk);
    }
    await write(DONE);
  } catch (err) {
    // Not a file of the workspace: something of the harness's own. git is stopped and waited for.
    child.kill('SIGKILL');
    await exited;
    throw err;
  }
  child.stdin.end();
  const code = await exited;
  const failed = spawnError as Error | null;
  if (failed)
    return {
      ok: false,
      error: `git fast-import could not run: ${failed.message}. Fix: apt-get install -y git`,
    };
  if (code !== 0) return { ok: false, error: `git fast-import failed: ${stderr.trim()}` };
  return { ok: true, unreadable };
}
