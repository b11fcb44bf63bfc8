import { statSync } from 'node:fs';
import path from 'node:path';
import type { EvidenceBundle } from '../analysis/evidence-bundle.js';
import { ResolvedConfigSchema } from '../config/stored-config.js';
import { InputError } from '../errors.js';
import {
  AgentEvidenceSchema,
  CanaryEvidenceSchema,
  CommandRecordSchema,
  DiffEvidenceSchema,
  NetworkRecordSchema,
  ObservationSchema,
  ProtectedStateEvidenceSchema,
  RunMetaSchema,
  SetupEvidenceSchema,
  SkillsEvidenceSchema,
  SysEventSchema,
  TestEvidenceSchema,
  TimelineEventSchema,
  WorkspaceEvidenceSchema,
} from '../evidence/bundle-types.js';
import { runPath } from '../evidence/layout.js';
import { readModelEvidence } from '../evidence/model-evidence.js';
import { isMissing, READ_LIMITS, readEvidenceText, readJson, readJsonl } from '../evidence/read.js';
import { ReplaySourceSchema } from '../evidence/replay-evidence.js';

export type RunMeta = { run_id: string; started_at: string; finished_at: string; stopped?: string };

const FIX = 'the run directory is incomplete or was edited; re-run the task';

/**
 * Load everything a run collected, naming the file (and line) when something is missing, corrupt,
 * of the wrong shape, too big, or not a regular file. Every read is bounded, and no symbolic link
 * inside the run folder is followed (it is input someone else may have written).
 */
export function readBundle(runDir: string): EvidenceBundle {
  const dir = path.resolve(runDir);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) {
    throw new InputError(`${dir} is not a run directory. Fix: pass a folder under .agentguard/runs/.`);
  }
  const f = (name: Parameters<typeof runPath>[1]) => runPath(dir, name);
  if (isMissing(f('run'), dir)) {
    throw new InputError(
      `${dir} has no evidence/run.json, so it is not a finished agentguard run. Fix: pass a folder under .agentguard/runs/.`,
    );
  }
  const meta = readJson(f('run'), FIX, RunMetaSchema, dir);
  const config = readJson(f('config'), FIX, ResolvedConfigSchema, dir);
  const diff = readJson(f('diff'), FIX, DiffEvidenceSchema, dir);
  let patch = '';
  if (isMissing(f('patch'), dir)) {
    // A missing patch is treated like a truncated one: content scans fail closed.
    diff.patch_truncated = true;
  } else {
    patch = readEvidenceText(f('patch'), { fix: FIX, maxBytes: READ_LIMITS.text, within: dir });
  }
  return {
    run_id: meta.run_id,
    run_dir: dir,
    started_at: meta.started_at,
    finished_at: meta.finished_at,
    config,
    workspace: readJson(f('workspace'), FIX, WorkspaceEvidenceSchema, dir),
    agent: readJson(f('agent'), FIX, AgentEvidenceSchema, dir),
    commands: readJsonl(f('commands'), { fix: FIX, within: dir, schema: CommandRecordSchema }),
    tests: readJson(f('tests'), FIX, TestEvidenceSchema, dir),
    diff,
    patch,
    syscalls: readJsonl(f('syscalls'), { optional: true, fix: FIX, within: dir, schema: SysEventSchema }),
    test_syscalls: readJsonl(f('testSyscalls'), {
      optional: true,
      fix: FIX,
      within: dir,
      schema: SysEventSchema,
    }),
    network: readJsonl(f('network'), { optional: true, fix: FIX, within: dir, schema: NetworkRecordSchema }),
    timeline: readJsonl(f('timeline'), {
      optional: true,
      fix: FIX,
      within: dir,
      schema: TimelineEventSchema,
    }),
    observation: readJson(f('observation'), FIX, ObservationSchema, dir),
    skills: isMissing(f('skills'), dir) ? [] : readJson(f('skills'), FIX, SkillsEvidenceSchema, dir).files,
    setup: isMissing(f('setup'), dir) ? null : readJson(f('setup'), FIX, SetupEvidenceSchema, dir),
    canaries: isMissing(f('canaries'), dir) ? null : readJson(f('canaries'), FIX, CanaryEvidenceSchema, dir),
    ...(isMissing(f('protectedState'), dir)
      ? {}
      : { protected_state: readJson(f('protectedState'), FIX, ProtectedStateEvidenceSchema, dir) }),
    model: readModelEvidence(f('model'), dir),
    ...(isMissing(f('replay'), dir) ? {} : { replay: readJson(f('replay'), FIX, ReplaySourceSchema, dir) }),
    ...(meta.stopped !== undefined ? { stopped: meta.stopped } : {}),
  };
}
