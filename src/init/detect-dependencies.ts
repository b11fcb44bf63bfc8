import { readFileSync } from 'node:fs';
import path from 'node:path';
import { JS_LOCKFILES } from '../config/setup-schema.js';
import { JS_CLIENT_INSTALL, jsClient } from '../pipeline/js-install.js';
import { resolveProgram } from '../pipeline/preflight.js';
import type { DependencySetup } from './dependency-setup.js';
import type { ProjectFacts } from './detect-project.js';
import { python } from './detect-python.js';

/** The registry init names as setup's mirror; the user replaces it with their own. */
export const NPM_REGISTRY = 'https://registry.npmjs.org/';

/**
 * How this machine's package managers reach a registry: a TLS trust store behind an intercepting
 * proxy, corepack's registry and signing keys. Paths and public settings, never credentials; the
 * config names them and the run copies their values from the environment it is started in.
 */
const TOOL_ENVIRONMENT = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'PIP_CERT',
  'COREPACK_NPM_REGISTRY',
  'COREPACK_INTEGRITY_KEYS',
];

/** A JavaScript project's lockfile and the client it belongs to. */
function jsLockfile(
  entries: Set<string>,
): { manager: 'npm' | 'pnpm' | 'yarn' | 'bun'; lockfile: string } | null {
  for (const manager of ['pnpm', 'yarn', 'bun', 'npm'] as const)
    for (const lockfile of JS_LOCKFILES[manager]) if (entries.has(lockfile)) return { manager, lockfile };
  return null;
}

function hasDependencies(dir: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    return ['dependencies', 'devDependencies'].some(
      (k) => typeof pkg[k] === 'object' && pkg[k] !== null && Object.keys(pkg[k] as object).length > 0,
    );
  } catch {
    return false;
  }
}

function node(dir: string, facts: ProjectFacts, pathVar: string | undefined, out: DependencySetup): void {
  const found = jsLockfile(facts.entries);
  if (!found) {
    if (hasDependencies(dir))
      out.notes.push(
        'package.json has dependencies but no lockfile: setup installs from a lockfile only (`npm install --package-lock-only`, then commit it)',
      );
    return;
  }
  out.entries.push({ manager: found.manager, lockfile: found.lockfile, mirror: NPM_REGISTRY });
  if (found.manager === 'npm') return;
  const client = jsClient(found.manager, dir, pathVar);
  if (!client) {
    out.notes.push(`${found.manager} is not installed: ${JS_CLIENT_INSTALL[found.manager]}`);
    return;
  }
  // The tests run the client the install ran: corepack's, when package.json pins it.
  const cmd = out.test_command;
  if (client[0] === 'corepack' && cmd?.[0] === found.manager) out.test_command = [...client, ...cmd.slice(1)];
}

/**
 * How `init`'s config installs the project's dependencies before the agent, and the test command
 * that uses them: the lockfile's client from the npm registry; requirements files, or else the
 * dependencies pyproject.toml declares (at a uv or poetry lockfile's versions), from PyPI into a
 * workspace venv; the project's own venv when it has one; `PYTHONPATH=src` for a `src/` layout that
 * setup does not install; notes for what setup cannot do.
 */
export function detectDependencies(
  dir: string,
  facts: ProjectFacts,
  env: Record<string, string | undefined>,
): DependencySetup {
  const pathVar = env.PATH;
  const out: DependencySetup = {
    entries: [],
    test_command: facts.test_command,
    notes: [],
    environment: [],
    toolchains: [],
  };
  node(dir, facts, pathVar, out);
  python(dir, facts, env, out);
  if (out.entries.length > 0) out.environment = TOOL_ENVIRONMENT.filter((n) => env[n] !== undefined);
  const program = out.test_command?.[0];
  const madeBySetup = out.entries.some((e) => e.manager === 'pip') && program?.startsWith('.venv/');
  if (program && program !== 'env' && !madeBySetup && !resolveProgram(program, dir, pathVar))
    out.notes.push(
      `the test command's program '${program}' is not on PATH: install it, or edit test_command`,
    );
  return out;
}
