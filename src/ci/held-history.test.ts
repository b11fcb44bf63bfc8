import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publishHistory, stageHistory } from './held-history.js';
import { holdOutputFolder } from './held-output.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'ag-held-history-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function held(name: string) {
  const root = path.join(work, name);
  mkdirSync(root);
  const out = holdOutputFolder(path.join(root, '.agentguard'), root);
  const staging = mkdtempSync(path.join(work, `${name}-staging-`));
  return { root, dir: path.join(root, '.agentguard'), out, staging };
}

describe('the history index copied out of the held output folder and back', () => {
  it('copies the index and a leftover WAL in, and puts the written copy back in whole, stale side files removed', () => {
    const { dir, out, staging } = held('round');
    writeFileSync(path.join(dir, 'history.db'), 'old index');
    writeFileSync(path.join(dir, 'history.db-wal'), 'old wal');
    const staged = stageHistory(out, staging);
    expect(readFileSync(staged, 'utf8')).toBe('old index');
    expect(readFileSync(`${staged}-wal`, 'utf8')).toBe('old wal');
    writeFileSync(staged, 'new index');
    rmSync(`${staged}-wal`);
    writeFileSync(path.join(dir, 'history.db-shm'), 'stale');
    publishHistory(out, staged);
    expect(readFileSync(path.join(dir, 'history.db'), 'utf8')).toBe('new index');
    expect(existsSync(path.join(dir, 'history.db-wal'))).toBe(false);
    expect(existsSync(path.join(dir, 'history.db-shm'))).toBe(false);
    expect(lstatSync(path.join(dir, 'history.db')).mode & 0o777).toBe(0o600);
    out.close();
  });

  it('refuses a link or a fifo planted as the index after the folder was held, reading nothing through it', () => {
    const { dir, out, staging } = held('planted');
    const secret = path.join(work, 'secret');
    writeFileSync(secret, 'not yours');
    symlinkSync(secret, path.join(dir, 'history.db'));
    expect(() => stageHistory(out, staging)).toThrow(/history\.db is a link or not a regular file/);
    expect(existsSync(path.join(staging, 'history.db'))).toBe(false);
    rmSync(path.join(dir, 'history.db'));
    spawnSync('mkfifo', [path.join(dir, 'history.db-wal')]);
    // A fifo is refused at once, not waited on.
    expect(() => stageHistory(out, staging)).toThrow(/history\.db-wal is a link or not a regular file/);
    out.close();
  });

  it('replaces a link planted where the index goes back, never writing through it', () => {
    const { dir, out, staging } = held('publish');
    const staged = stageHistory(out, staging);
    writeFileSync(staged, 'index');
    const victim = path.join(work, 'victim-file');
    writeFileSync(victim, 'untouched');
    symlinkSync(victim, path.join(dir, 'history.db'));
    symlinkSync(path.join(work, 'victim-wal'), path.join(dir, 'history.db-wal'));
    publishHistory(out, staged);
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(existsSync(path.join(work, 'victim-wal'))).toBe(false);
    expect(lstatSync(path.join(dir, 'history.db')).isFile()).toBe(true);
    expect(readFileSync(path.join(dir, 'history.db'), 'utf8')).toBe('index');
    expect(() => readlinkSync(path.join(dir, 'history.db-wal'))).toThrow();
    out.close();
  });
});
