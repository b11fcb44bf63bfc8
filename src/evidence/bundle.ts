import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '../config/schema.js';
import { InputError } from '../errors.js';
import type { AgentEvidence, CanaryEvidence, EvidenceBundle } from './bundle-types.js';
import { runPath } from './layout.js';
import { readJson, readJsonl } from './read.js';
import type {
  CommandRecord,
  DiffEvidence,
  NetworkRecord,
  Observation,
  SysEvent,
  TestEvidence,
  TimelineEvent,
  WorkspaceEvidence,
} from './types.js';

export type RunMeta = { run_id: string; started_at: string; finished_at: string; stopped?: string };

function expectKeys<T>(file: string, value: T, keys: string[]): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(
      `${file} does not hold a JSON object. Fix: the run directory is corrupt; re-run the task.`,
    );
  }
  const missing = keys.filter((k) => !(k in (value as object)));
  if (missing.length > 0) {
    throw new InputError(
      `${file} lacks the field '${missing[0]}'. Fix: it was written by another version or edited; re-run the task.`,
    );
  }
  return value;
}

/** Load everything a run collected, naming the file when something is missing or corrupt. */
export function readBundle(runDir: string): EvidenceBundle {
  const dir = path.resolve(runDir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new InputError(`${dir} is not a run directory. Fix: pass a folder under .agentguard/runs/.`);
  }
  const f = (name: Parameters<typeof runPath>[1]) => runPath(dir, name);
  if (!existsSync(f('run'))) {
    throw new InputError(
      `${dir} has no evidence/run.json, so it is not a finished agentguard run. Fix: pass a folder under .agentguard/runs/.`,
    );
  }
  const meta = expectKeys(f('run'), readJson<RunMeta>(f('run')), ['run_id', 'started_at', 'finished_at']);
  const config = expectKeys(f('config'), readJson<ResolvedConfig>(f('config')), ['name', 'test_command']);
  const diffFile = f('diff');
  const diff = expectKeys(diffFile, readJson<DiffEvidence>(diffFile), ['files', 'baseline_sha']);
  if (!Array.isArray(diff.files))
    throw new InputError(`${diffFile}: 'files' is not a list. Fix: re-run the task.`);
  let patch = '';
  try {
    patch = readFileSync(f('patch'), 'utf8');
  } catch {
    // A missing patch is treated like a truncated one: content scans fail closed.
    diff.patch_truncated = true;
  }
  return {
    run_id: meta.run_id,
    run_dir: dir,
    started_at: meta.started_at,
    finished_at: meta.finished_at,
    config,
    workspace: expectKeys(f('workspace'), readJson<WorkspaceEvidence>(f('workspace')), ['baseline_sha']),
    agent: expectKeys(f('agent'), readJson<AgentEvidence>(f('agent')), ['adapter', 'outcome']),
    commands: readJsonl<CommandRecord>(f('commands')),
    tests: expectKeys(f('tests'), readJson<TestEvidence>(f('tests')), ['ran', 'passed']),
    diff,
    patch,
    syscalls: readJsonl<SysEvent>(f('syscalls'), { optional: true }),
    network: readJsonl<NetworkRecord>(f('network'), { optional: true }),
    timeline: readJsonl<TimelineEvent>(f('timeline'), { optional: true }),
    observation: expectKeys(f('observation'), readJson<Observation>(f('observation')), ['sandbox', 'tracer']),
    skills: existsSync(f('skills')) ? readJson<{ files: string[] }>(f('skills')).files : [],
    canaries: existsSync(f('canaries'))
      ? expectKeys(f('canaries'), readJson<CanaryEvidence>(f('canaries')), ['home', 'canaries'])
      : null,
    ...(typeof meta.stopped === 'string' ? { stopped: meta.stopped } : {}),
  };
}
