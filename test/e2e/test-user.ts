import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import { expect } from 'vitest';

/** A normal user made by a test (root only), with the home folder it names. */
export type TestUser = { name: string; uid: number; gid: number; home: string };

export const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** Whether this process may make a user and run programs as it. */
export const canMakeUsers = process.getuid?.() === 0 && ['useradd', 'userdel', 'setpriv'].every(has);

/**
 * Makes user `name` with `home` (created, owned by it) and checks that it may run this Node:
 * a test needing it fails here, naming the cause, not later in a run.
 */
export function makeTestUser(name: string, home: string): TestUser {
  const made = spawnSync('useradd', ['-M', '-d', home, '-s', '/bin/sh', name], { encoding: 'utf8' });
  expect(made.status, made.stderr).toBe(0);
  const uid = Number(spawnSync('id', ['-u', name], { encoding: 'utf8' }).stdout);
  const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout);
  mkdirSync(home, { recursive: true });
  chownSync(home, uid, gid);
  const node = spawnSync('setpriv', [...dropTo({ name, uid, gid, home }), process.execPath, '-e', '0']);
  expect(node.status, `${process.execPath} must be runnable by a normal user for this test`).toBe(0);
  return { name, uid, gid, home };
}

export function removeTestUser(user: TestUser | undefined): void {
  if (user) spawnSync('userdel', [user.name]);
}

/** setpriv's arguments that run the rest of its command line as `user`, with no other group. */
export function dropTo(user: TestUser): string[] {
  return [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--'];
}

/** The environment a login shell of `user` would give a command. */
export function userEnv(user: TestUser, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: user.home,
    USER: user.name,
    NO_COLOR: '1',
    ...extra,
  };
}
