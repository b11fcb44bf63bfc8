import {
  chmodSync,
  lchownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { Disposer } from '../exec/disposer.js';
import { processStart } from '../exec/owner-registry.js';
import type { RunUser, Sandbox } from './types.js';

/**
 * The range run users are taken from: the 2^16 ids just under 2^31. Far above any distribution's
 * users (system ids end at 999, login users at 60000, systemd's dynamic users at 61183-65519 and
 * container subordinate ranges start at 100000 and take 65536 each), below the ids some programs
 * take for negative numbers (2^31 and up), and the gid is the uid.
 */
export const RUN_UID_FIRST = 2 ** 31 - 2 ** 16;
export const RUN_UID_COUNT = 2 ** 16;

/** Where the leases live: /run is a tmpfs, so a reboot clears them with the processes that held them. */
export const RUN_USERS_DIR = '/run/agentguard/run-users';

/** A claimed run user; release() gives the id back (once; later calls do nothing). */
export type RunUserLease = RunUser & { release(): void };

/**
 * Claim a free run user: a lease file per uid, created exclusively (`wx`), naming the owner by pid
 * and start time. A lease whose owner is dead (a harness killed with SIGKILL) is taken back.
 */
export function claimRunUser(
  dir = RUN_USERS_DIR,
  pick = () => Math.floor(Math.random() * RUN_UID_COUNT),
): RunUserLease {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const owner = `${process.pid}:${processStart(process.pid) ?? '0'}`;
  const start = pick();
  for (let i = 0; i < RUN_UID_COUNT; i++) {
    const uid = RUN_UID_FIRST + ((start + i) % RUN_UID_COUNT);
    const file = path.join(dir, String(uid));
    if (!createLease(file, owner) && !(reclaimDead(file) && createLease(file, owner))) continue;
    let held = true;
    return {
      uid,
      gid: uid,
      release() {
        if (!held) return;
        held = false;
        try {
          if (readFileSync(file, 'utf8') === owner) unlinkSync(file);
        } catch {
          // already taken back
        }
      },
    };
  }
  throw new Error(`no free run user: all ${RUN_UID_COUNT} leases in ${dir} are held by live processes`);
}

/** Written aside and linked into place, so that a lease is never seen half written. */
/**
 * The run's user, when its sandbox runs commands as one and the harness is root (only root can
 * become another uid; a harness that is not root runs the agent as its own, unprivileged, user).
 * Released with the run's other resources.
 */
export function claimRunUserFor(sandbox: Sandbox, disposer: Disposer): RunUser | null {
  if (!sandbox.capabilities.runsAsRunUser || process.getuid?.() !== 0) return null;
  const lease = claimRunUser();
  disposer.add('run user', () => lease.release());
  return { uid: lease.uid, gid: lease.gid };
}

function createLease(file: string, owner: string): boolean {
  const fresh = `${file}.${process.pid}.new`;
  writeFileSync(fresh, owner, { mode: 0o600 });
  try {
    linkSync(fresh, file);
    return true;
  } catch {
    return false;
  } finally {
    unlinkSync(fresh);
  }
}

/** The lease's owner is dead: move it aside atomically, and put it back if it was live after all. */
function reclaimDead(file: string): boolean {
  if (ownerAlive(readOrNull(file))) return false;
  const aside = `${file}.${process.pid}.reclaim`;
  try {
    renameSync(file, aside);
  } catch {
    return false;
  }
  const moved = readOrNull(aside);
  if (ownerAlive(moved)) {
    // Another harness claimed it between our read and the rename: give it back.
    try {
      linkSync(aside, file);
    } catch {
      // taken again meanwhile: the uid is not ours either way
    }
    unlinkSync(aside);
    return false;
  }
  unlinkSync(aside);
  return true;
}

/**
 * Give back the leases of holders that died without releasing them (a harness killed with SIGKILL),
 * and the half-made lease files such a holder left: a dead holder's uid is free again, and the
 * folder does not grow with every crash. A live holder's lease is never touched. Returns how many
 * leases were given back.
 */
export function sweepDeadLeases(dir = RUN_USERS_DIR): number {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let freed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    if (/^\d+$/.test(name)) {
      if (reclaimDead(file)) freed++;
      continue;
    }
    // `<uid>.<pid>.new` / `.reclaim`: a claim or a take-back cut short by its holder's death.
    const temp = /^\d+\.(\d+)\.(new|reclaim)$/.exec(name);
    if (!temp || processStart(Number(temp[1])) !== null) continue;
    try {
      unlinkSync(file);
    } catch {
      // gone already
    }
  }
  return freed;
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function ownerAlive(owner: string | null): boolean {
  if (owner === null) return true; // gone: someone else is reclaiming it
  const [pid, start] = owner.split(':');
  return processStart(Number(pid)) === start;
}

/**
 * Give a folder tree to the run user (the workspace, the run HOME): the agent writes them as its own.
 * Symbolic links are changed themselves, never followed.
 */
export function chownTree(root: string, user: RunUser): void {
  // Names as bytes: a name that is not UTF-8 would not survive a round trip through a string.
  const walk = (p: Buffer) => {
    lchownSync(p, user.uid, user.gid);
    if (!lstatSync(p).isDirectory()) return;
    for (const name of readdirSync(p, { encoding: 'buffer' })) walk(Buffer.concat([p, SLASH, name]));
  };
  walk(Buffer.from(root));
}

const SLASH = Buffer.from('/');

/**
 * The harness's own folders (the output folder, its `runs/`, this run's folder) are root's alone:
 * no run user may cross them, so every run's canaries, evidence, sockets and history.db are out of
 * reach by permissions wherever a sandbox's masks do not reach (another output folder it is shown).
 * The sandbox binds the run's own workspace, HOME and task in at their paths; it does not need these.
 */
export function closeToRunUsers(dirs: readonly string[]): void {
  for (const dir of dirs) chmodSync(dir, 0o700);
}

/**
 * The host's /etc/passwd and /etc/group with the run user added (its HOME the agent's), shown in
 * the sandbox over the host's: programs that look their user up (git, ssh, Python's getpass, whoami)
 * find one.
 */
export function userDatabase(user: RunUser, home: string, etc = '/etc'): { passwd: string; group: string } {
  const read = (name: string) => {
    const text = readOrNull(path.join(etc, name)) ?? '';
    return text === '' || text.endsWith('\n') ? text : `${text}\n`;
  };
  return {
    passwd: `${read('passwd')}agent:x:${user.uid}:${user.gid}:agentguard run user:${home}:/bin/sh\n`,
    group: `${read('group')}agent:x:${user.gid}:\n`,
  };
}
