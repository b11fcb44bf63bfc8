import path from 'node:path';
import { ConfigError, InternalError } from '../../errors.js';
import { actionSource, actionSourceNote } from '../../init/action-source.js';
import { ciConfigIssues, taskConfigIssues } from '../../init/check-written.js';
import { chooseAgent } from '../../init/detect-agent.js';
import { initRepo } from '../../init/init-repo.js';
import { packageRoot } from '../../package-root.js';
import { isSchemaKind, jsonSchema, SCHEMA_KINDS } from '../../schemas/json-schemas.js';
import { type CliIO, type GlobalOptions, outputDir } from '../io.js';
import { checkWrittenConfig } from './init-check.js';

/** `pnpm-lock.yaml`, `requirements.txt`, `pyproject.toml at uv.lock's versions`. */
const installed = (e: Record<string, string | string[]>) =>
  e.pyproject
    ? `${e.pyproject}${e.lockfile ? ` at ${e.lockfile}'s versions` : ''}`
    : (e.lockfile ?? e.requirements);

export type InitCommandOptions = GlobalOptions & {
  force?: boolean;
  ci?: boolean;
  action?: string;
  /** Run the written config once with mock-noop (default on; `--no-check` is false). */
  check?: boolean;
};

/** `agentguard init [DIR]`: write a config that runs as is, and say what it found. */
export async function initCommand(
  io: CliIO,
  dir: string | undefined,
  opts: InitCommandOptions,
): Promise<number> {
  const root = path.resolve(dir ?? '.');
  const action = opts.ci ? actionSource(opts.action, packageRoot()) : null;
  const result = initRepo(root, {
    force: opts.force === true,
    ci: opts.ci === true,
    agent: chooseAgent(),
    action: action ?? { kind: 'variables' },
  });
  const [config] = result.written;
  if (config === undefined) throw new InternalError('init wrote no file');
  // What init writes must load: a config the loader refuses is our bug, not the user's.
  const issues = opts.ci ? ciConfigIssues(config, root) : taskConfigIssues(config);
  if (issues !== null) throw new InternalError(`the config init wrote does not load: ${issues}`);
  const { facts, dependencies } = result;
  const testCommand = opts.ci ? facts.test_command : dependencies.test_command;
  io.out(
    testCommand
      ? `found ${facts.languages.join(', ')}; tests: ${testCommand.join(' ')} (${facts.test_source})`
      : 'found no test command: edit test_command in the written config',
  );
  if (!opts.ci)
    for (const e of dependencies.entries)
      io.out(`setup installs: ${e.manager} ${installed(e)} from ${e.mirror}`);
  for (const note of dependencies.notes) io.out(`note: ${note}`);
  for (const file of result.written) io.out(`wrote ${path.relative(process.cwd(), file) || file}`);
  const note = action === null ? null : actionSourceNote(action);
  if (note !== null) io.out(note);
  const rel = path.relative(process.cwd(), config) || config;
  if (!opts.ci && opts.check !== false && testCommand) {
    const passed = await checkWrittenConfig(
      io,
      rel,
      outputDir({ ...opts, outputDir: opts.outputDir ?? path.join(root, '.agentguard') }),
    );
    if (!passed) {
      io.out(`next: fix what the check reported in ${rel}, then agentguard run ${rel} --agent mock-noop`);
      return 1;
    }
  }
  io.out(
    opts.ci
      ? 'next: commit both files; each pull request is then judged by `agentguard ci` (docs/ci.md)'
      : `next: agentguard run ${rel} --agent mock-noop   (then without --agent once agent_profile or agent_command is set)`,
  );
  return 0;
}

/** `agentguard schema KIND`: the JSON Schema of one file format on stdout. */
export async function schemaCommand(io: CliIO, kind: string | undefined): Promise<number> {
  if (kind === undefined || !isSchemaKind(kind))
    throw new ConfigError(
      `${kind === undefined ? 'no schema kind given' : `'${kind}' is not a file format`}. Fix: use one of ${SCHEMA_KINDS.join(', ')}.`,
    );
  io.out(JSON.stringify(jsonSchema(kind), null, 2));
  return 0;
}
