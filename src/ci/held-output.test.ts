import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdOutputFolder, publishRun, stagingFolder, stillAtPath, writeNewFileHeld } from './held-output.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'ag-held-'));
// /dev/shm is another filesystem than the system's temporary folder here: the copy, not a rename.
const shm = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/ag-held-') : null;
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  if (shm) rmSync(shm, { recursive: true, force: true });
});

/** A run folder in a fresh staging folder: a file, a nested folder, and a link kept as a link. */
function stagedRun(id: string): string {
  const staging = stagingFolder();
  const run = path.join(staging, id);
  mkdirSync(path.join(run, 'evidence'), { recursive: true });
  writeFileSync(path.join(run, 'report.json'), '{"result":"PASS"}\n');
  writeFileSync(path.join(run, 'evidence/diff.json'), '{}\n');
  symlinkSync('/etc/passwd', path.join(run, 'evidence/link'));
  return staging;
}

describe('the held output folder', () => {
  it('writes into the folder it opened, after the path was swapped for a link', () => {
    const out = path.join(work, 'a/.agentguard');
    const held = holdOutputFolder(out, work);
    try {
      const victim = path.join(work, 'victim');
      mkdirSync(victim);
      renameSync(out, path.join(work, 'a/moved'));
      symlinkSync(victim, out);
      expect(stillAtPath(held)).toBe(false);
      writeNewFileHeld(held, '.gitignore', '*\n');
      const staging = stagedRun('r1');
      expect(publishRun(held, staging, 'r1')).toBe(path.join(out, 'ci/r1'));
      expect(readdirSync(victim)).toEqual([]);
      expect(readFileSync(path.join(work, 'a/moved/.gitignore'), 'utf8')).toBe('*\n');
      expect(readFileSync(path.join(work, 'a/moved/ci/r1/report.json'), 'utf8')).toContain('PASS');
      expect(existsSync(staging)).toBe(false);
    } finally {
      held.close();
    }
  });

  it.skipIf(shm === null)('copies across filesystems without following a link, links kept as links', () => {
    const out = path.join(shm as string, '.agentguard');
    const held = holdOutputFolder(out, path.dirname(out));
    try {
      expect(stillAtPath(held)).toBe(true);
      const staging = stagedRun('r2');
      publishRun(held, staging, 'r2');
      const run = path.join(out, 'ci/r2');
      expect(readFileSync(path.join(run, 'evidence/diff.json'), 'utf8')).toBe('{}\n');
      expect(lstatSync(path.join(run, 'evidence/link')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(path.join(run, 'evidence/link'))).toBe('/etc/passwd');
      expect(existsSync(staging)).toBe(false);
    } finally {
      held.close();
    }
  });

  it('never writes a fixed name through a link planted under it', () => {
    const out = path.join(work, 'b');
    const held = holdOutputFolder(out, work);
    try {
      const target = path.join(work, 'planted-target');
      symlinkSync(target, path.join(out, '.gitignore'));
      writeNewFileHeld(held, '.gitignore', '*\n');
      expect(existsSync(target)).toBe(false);
    } finally {
      held.close();
    }
  });

  it('refuses a link on the way, and a folder others may write', () => {
    mkdirSync(path.join(work, 'real'));
    symlinkSync(path.join(work, 'real'), path.join(work, 'link'));
    expect(() => holdOutputFolder(path.join(work, 'link/.agentguard'), work)).toThrow(
      `${path.join(work, 'link')} is a symlink`,
    );
    const open = path.join(work, 'open');
    mkdirSync(path.join(open, 'ci'), { recursive: true });
    chmodSync(open, 0o777);
    expect(() => holdOutputFolder(open, work)).toThrow(
      `the output folder ${open} may be written by other users`,
    );
  });
});
