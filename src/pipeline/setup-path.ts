import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentPlan } from '../agents/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { clientOf } from './install-dependencies.js';
import { COREPACK_HOME } from './setup-home.js';

/** Where in a HOME the run's corepack commands are (`pnpm`, `yarn` calling `corepack pnpm`, …). */
const SHIMS = path.join(COREPACK_HOME, 'shims');

/** The names each client answers to, as `corepack enable` installs them, and the corepack command each runs. */
const NAMES: Record<'pnpm' | 'yarn', [name: string, command: string][]> = {
  pnpm: [
    ['pnpm', 'pnpm'],
    ['pnpx', 'pnpx'],
  ],
  yarn: [
    ['yarn', 'yarn'],
    ['yarnpkg', 'yarn'],
  ],
};

/**
 * The clients setup runs through corepack because none is on PATH. A project's own scripts call them
 * by name (`"test": "pnpm -r test"`, `yarn workspaces run test`), which only works where
 * `corepack enable` was run: the run puts those names on PATH itself.
 */
export function corepackClients(cfg: ResolvedConfig, pathVar: string | undefined): ('pnpm' | 'yarn')[] {
  const found = new Set<'pnpm' | 'yarn'>();
  for (const dep of cfg.setup?.dependencies ?? []) {
    if (dep.manager !== 'pnpm' && dep.manager !== 'yarn') continue;
    if (clientOf(dep, cfg.repo, pathVar)?.[0] === 'corepack') found.add(dep.manager);
  }
  return [...found].sort();
}

/**
 * The agent's plan (and so setup_command's and the tests' environment) with what setup makes first
 * on PATH, as an activated environment has it: the corepack shims, and each pip entry's venv
 * `bin` folder, so that a Makefile's `pytest`, a tox-less `python -m pytest` or a script's `python`
 * runs the interpreter the dependencies were installed for.
 */
export function withSetupPath(
  plan: AgentPlan,
  places: { agentHome: string; repoDir: string },
  cfg: ResolvedConfig,
  pathVar: string | undefined,
): AgentPlan {
  const dirs = corepackClients(cfg, pathVar).length > 0 ? [path.join(places.agentHome, SHIMS)] : [];
  for (const dep of cfg.setup?.dependencies ?? [])
    if (dep.manager === 'pip') dirs.push(path.join(places.repoDir, dep.target, 'bin'));
  if (dirs.length === 0) return plan;
  const env = plan.spec.env;
  const PATH = [...new Set(dirs)].join(':') + (env.PATH ? `:${env.PATH}` : '');
  return { ...plan, spec: { ...plan.spec, env: { ...env, PATH } } };
}

/**
 * Writes the shims into the run's HOME, beside corepack's clients: each runs `corepack <client>`,
 * the very command setup installed with, so the version package.json pins is the one that runs.
 */
export function writeCorepackShims(hostHome: string, clients: ('pnpm' | 'yarn')[]): void {
  if (clients.length === 0) return;
  const dir = path.join(hostHome, SHIMS);
  mkdirSync(dir, { recursive: true });
  for (const client of clients)
    for (const [name, command] of NAMES[client])
      writeFileSync(path.join(dir, name), `#!/bin/sh\nexec corepack ${command} "$@"\n`, { mode: 0o755 });
}
