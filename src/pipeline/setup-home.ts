import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runPath } from '../evidence/layout.js';
import { chownTree } from '../sandbox/run-user.js';
import type { SandboxPlaces } from '../sandbox/types.js';

/** Where corepack keeps the clients it fetched, inside a HOME (COREPACK_HOME unset). */
export const COREPACK_HOME = '.cache/node/corepack';

/** yarn 2+'s folder in a HOME: its global cache of zip archives. */
export const YARN_BERRY_HOME = '.yarn/berry';

/**
 * What an install leaves in HOME that the tests then read: corepack's client, and yarn 2+'s global
 * cache, whose zip archives a Plug'n'Play project (`.pnp.cjs`, no node_modules) loads its packages from.
 */
const KEPT = [COREPACK_HOME, YARN_BERRY_HOME];

/** The HOME setup's installers run with, on the host and as they see it. */
export type SetupHome = {
  /** The places of setup's sandbox session: the run's, with this HOME in place of the run's. */
  places: SandboxPlaces;
  /** HOME as the installers see it. */
  home: string;
  /** Moves what the run needs from it (KEPT) into the run's HOME, then removes it. */
  close(keep: boolean): void;
};

/**
 * An empty HOME for `setup.dependencies`, never the run's HOME: that one holds the canaries
 * (~/.npmrc, ~/.aws/credentials, ~/.env), and every installer reads its user configuration there
 * (npm, pnpm, yarn and bun read ~/.npmrc; pip ~/.config/pip; poetry ~/.config/pypoetry). A canary it
 * read would be a false alert, and a token it found would go to the mirror. Setup's session shows
 * this folder where the agent's HOME would be, and the canary HOME not at all, whatever installer
 * runs and whatever file it reads. What the tests need from it (KEPT) is copied to the run's HOME.
 */
export function openSetupHome(places: SandboxPlaces): SetupHome {
  const hostHome = runPath(places.runDir, 'setupHome');
  rmSync(hostHome, { recursive: true, force: true });
  mkdirSync(hostHome, { recursive: true, mode: 0o700 });
  if (places.user) chownTree(hostHome, places.user);
  // Where the run's HOME is seen: at its own path (this one then too), or where the sandbox shows it.
  const home = places.agentHome === places.hostHome ? hostHome : places.agentHome;
  return {
    places: { ...places, hostHome, agentHome: home },
    home,
    close(keep) {
      for (const rel of keep ? KEPT : []) {
        if (!existsSync(path.join(hostHome, rel))) continue;
        cpSync(path.join(hostHome, rel), path.join(places.hostHome, rel), {
          recursive: true,
          verbatimSymlinks: true,
          preserveTimestamps: true,
        });
      }
      rmSync(hostHome, { recursive: true, force: true });
    },
  };
}
