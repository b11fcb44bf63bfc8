import { spawn, spawnSync } from 'node:child_process';
import { closeSync, lstatSync, openSync, readFileSync, readlinkSync, rmSync, writeSync } from 'node:fs';
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
 * Commit every file of `workTree` (except `.git` folders and the `skip` set, names as `pathKey`s) as the single commit
 * of `refs/heads/main`, through one `git fast-import` stream. It writes one pack instead of one
 * loose object per file, which on these machines is the difference between ~2 s and ~0.2 s for a
 * 2,000-file repository. `--force`: committing again (after setup_command) replaces that commit.
 */
export async function commitTree(opts: {
  gitDir: string;
  workTree: string;
  skip: ReadonlySet<string>;
}): Promise<void> {
  const child = spawn('git', [...FAST_COMPRESSION, 'fast-import', '--quiet', '--done', '--force'], {
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

  await write(commitHeader('refs/heads/main'));
  for (const entry of walkTree(opts.workTree, (rel) => opts.skip.has(pathKey(rel))).entries) {
    for (const chunk of fileCommand(entry)) await write(chunk);
  }
  await write(DONE);
  child.stdin.end();
  const code = await exited.catch((err: Error) => {
    throw new SetupError(`git fast-import could not run: ${err.message}. Fix: apt-get install -y git.`);
  });
  if (code !== 0)
    throw new SetupError(`git fast-import failed while committing the baseline: ${stderr.trim()}`);
}

/**
 * The same commit made synchronously, for diff collection: the stream goes through a file beside
 * the harness's git directory (memory stays bounded however large the workspace), and a file that
 * vanishes or cannot be read while it is written is reported, not fatal. `ref` is replaced.
 */
export function commitEntriesSync(opts: {
  gitDir: string;
  workTree: string;
  ref: string;
  entries: TreeEntry[];
  streamFile: string;
  /** Larger files are reported instead of read whole into memory. */
  maxFileBytes?: number;
}): { ok: true; unreadable: { path: string; reason: string }[] } | { ok: false; error: string } {
  const maxFileBytes = opts.maxFileBytes ?? 512 * 1024 * 1024;
  const unreadable: { path: string; reason: string }[] = [];
  const fd = openSync(opts.streamFile, 'w', 0o600);
  try {
    writeSync(fd, commitHeader(opts.ref));
    for (const entry of opts.entries) {
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
      for (const chunk of chunks) writeSync(fd, chunk);
    }
    writeSync(fd, DONE);
  } finally {
    closeSync(fd);
  }
  const input = openSync(opts.streamFile, 'r');
  try {
    const r = spawnSync('git', [...FAST_COMPRESSION, 'fast-import', '--quiet', '--done', '--force'], {
      env: gitEnv({ gitDir: opts.gitDir, workTree: opts.workTree }),
      cwd: opts.workTree,
      stdio: [input, 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (r.error) return { ok: false, error: `git fast-import could not run: ${r.error.message}` };
    if (r.status !== 0) return { ok: false, error: `git fast-import failed: ${(r.stderr ?? '').trim()}` };
    return { ok: true, unreadable };
  } finally {
    closeSync(input);
    rmSync(opts.streamFile, { force: true });
  }
}
