import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claimRunUser, RUN_UID_COUNT, RUN_UID_FIRST, userDatabase } from './run-user.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ag-run-users-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('claimRunUser', () => {
  it('never gives one uid to two holders at once, and gives it back on release', () => {
    const same = () => 7;
    const a = claimRunUser(dir, same);
    const b = claimRunUser(dir, same);
    expect(a.uid).toBe(RUN_UID_FIRST + 7);
    expect(b.uid).toBe(RUN_UID_FIRST + 8);
    expect(a.gid).toBe(a.uid);
    a.release();
    a.release();
    expect(existsSync(path.join(dir, String(a.uid)))).toBe(false);
    const c = claimRunUser(dir, same);
    expect(c.uid).toBe(a.uid);
    b.release();
    c.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes back the lease of a holder that died without releasing it, never one of a live holder', () => {
    const dead = spawnSync('true').pid as number;
    writeFileSync(path.join(dir, String(RUN_UID_FIRST + 100)), `${dead}:1`);
    const live = claimRunUser(dir, () => 101);
    // Another live process's lease (this one's, under another uid) is skipped.
    writeFileSync(path.join(dir, String(RUN_UID_FIRST + 102)), readLease(live.uid));
    const reclaimed = claimRunUser(dir, () => 100);
    expect(reclaimed.uid).toBe(RUN_UID_FIRST + 100);
    const next = claimRunUser(dir, () => 101);
    expect(next.uid).toBe(RUN_UID_FIRST + 103);
    for (const l of [live, reclaimed, next]) l.release();
    rmSync(path.join(dir, String(RUN_UID_FIRST + 102)));
  });

  it('wraps around the end of the range', () => {
    const last = claimRunUser(dir, () => RUN_UID_COUNT - 1);
    const wrapped = claimRunUser(dir, () => RUN_UID_COUNT - 1);
    expect(last.uid).toBe(2 ** 31 - 1);
    expect(wrapped.uid).toBe(RUN_UID_FIRST);
    last.release();
    wrapped.release();
  });
});

const readLease = (uid: number) => readFileSync(path.join(dir, String(uid)), 'utf8');

describe('userDatabase', () => {
  it('adds the run user to the host passwd and group files', () => {
    const etc = mkdtempSync(path.join(tmpdir(), 'ag-etc-'));
    writeFileSync(path.join(etc, 'passwd'), 'root:x:0:0:root:/root:/bin/bash');
    writeFileSync(path.join(etc, 'group'), 'root:x:0:\n');
    const db = userDatabase({ uid: 5, gid: 6 }, '/root', etc);
    expect(db.passwd).toBe(
      'root:x:0:0:root:/root:/bin/bash\nagent:x:5:6:agentguard run user:/root:/bin/sh\n',
    );
    expect(db.group).toBe('root:x:0:\nagent:x:6:\n');
    rmSync(etc, { recursive: true });
  });
});
