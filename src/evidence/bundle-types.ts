import { z } from 'zod';
import { SANDBOX_KINDS, TRACER_KINDS } from './kinds.js';
import type {
  CommandRecord,
  DiffEvidence,
  NetworkRecord,
  Observation,
  ProtectedStateEvidence,
  SysEvent,
  TestEvidence,
  TimelineEvent,
  WorkspaceEvidence,
} from './types.js';
import { LEAK_PLACES, TEST_REPORT_FORMATS } from './types.js';

/** How the agent's own process ended. A crash or timeout is data, not an exception. */
/** What ended an agent before it finished: the guard, an interrupt, the run's time limit, or a failed setup before it started. */
export type StoppedBy = 'guard' | 'interrupt' | 'run-timeout' | 'setup-failed';

export type AgentOutcome =
  | { status: 'completed'; exit_code: 0 }
  | { status: 'failed'; exit_code: number | null; signal: string | null }
  | { status: 'timed-out'; timeout_seconds: number }
  | { status: 'blocked'; reason: string }
  | { status: 'errored'; error: string }
  /** Ended from outside while it ran: the live guard, an interrupt, the run's time limit. */
  | { status: 'stopped'; by: StoppedBy; reason: string }
  /** No agent ran: CI mode judges a checkout someone (or something) already changed. */
  | { status: 'none'; reason: string };

export type AgentEvidence = {
  adapter: string;
  name: string;
  version: string | null;
  model: string | null;
  metadata: Record<string, string | number | boolean | null>;
  outcome: AgentOutcome;
  command_id: string | null;
  /** From the agent profile: its vendor's own hosts (the rules' $VENDOR_HOSTS). Absent: none declared. */
  vendor_hosts?: string[];
  /** From the agent profile: the arguments that turn off its permission prompts. Absent: none declared. */
  prompt_off?: string[];
  /** What `--guard enforce` did about the first critical alert (absent: it had nothing to act on). */
  guard?: GuardEnforcement;
};

/** What `enforce` did about the first critical alert, for agent.json and the report. */
export type GuardEnforcement = {
  rule: string;
  /** From the matching call to the alert. */
  alert_latency_ms: number;
  outcome: 'stopped' | 'already-exited';
  /** `stopped`: from the alert to the agent's process having exited (null: not measured). */
  stopped_after_ms?: number | null;
  /** `already-exited`: how long before the alert the agent had exited. */
  exited_before_ms?: number;
};

export type CanaryEvidence = {
  home: string;
  /** `dev` and `ino`: the planted file's identity (absent in runs before it was recorded). */
  canaries: { kind: string; path: string; token: string; dev?: number; ino?: number }[];
};

/*
 * Schemas of what a run directory holds, checked when it is read back: a run folder is input
 * (copied, edited, or hand-made), and a record of the wrong shape must be an error naming the
 * file and line, not a crash deep in an analysis. Records keep fields they do not know (a newer
 * version may add some); the fields the analyses use must have the right types.
 */
const str = z.string();
const num = z.number();
const int = z.number().int();
const nullableNum = z.number().nullable();

export const RunMetaSchema = z.looseObject({
  run_id: str.min(1),
  started_at: str,
  finished_at: str,
  stopped: str.optional(),
});

export const SysEventSchema: z.ZodType<SysEvent> = z.looseObject({
  seq: num,
  ts: num,
  pid: int,
  ppid: int,
  exe: str,
  kind: z.enum(['exec', 'exit', 'fork', 'open', 'write-meta', 'connect', 'privilege', 'other']),
  syscall: str,
  path: str.optional(),
  path_as_written: str.optional(),
  ino: int.optional(),
  dev: int.optional(),
  path2: str.optional(),
  access: z.enum(['read', 'write', 'create']).optional(),
  argv: z.array(str).optional(),
  env: z.array(str).optional(),
  env_truncated: z.boolean().optional(),
  interpreter: z.string().optional(),
  target_pid: int.optional(),
  ids: z.array(int).optional(),
  target_self: z.boolean().optional(),
  cwd: str.optional(),
  addr: z
    .looseObject({
      family: z.enum(['inet', 'inet6', 'unix']),
      ip: str.optional(),
      port: int.optional(),
      host: str.optional(),
      path: str.optional(),
    })
    .optional(),
  mode: int.optional(),
  flags: z.array(str).optional(),
  result: num.optional(),
  truncated: z.boolean().optional(),
});

export const NetworkRecordSchema: z.ZodType<NetworkRecord> = z.looseObject({
  ts: num,
  host: str,
  port: int,
  protocol: z.enum(['http', 'connect', 'socks', 'dns']),
  decision: z.enum(['allowed', 'denied']),
  reason: str,
  method: str.optional(),
  bytes_up: num.optional(),
  bytes_down: num.optional(),
  client: z
    .union([
      z.looseObject({ pid: int, exe: str.optional(), ns_pid: int.optional(), port: int.optional() }),
      z.looseObject({
        pid: z.null(),
        reason: str,
        exe: str.optional(),
        ns_pid: int.optional(),
        port: int.optional(),
      }),
    ])
    .optional(),
  usage: z
    .looseObject({
      api: z.enum(['openai-chat', 'openai-responses', 'anthropic', 'gemini']),
      input_tokens: num,
      output_tokens: num,
      cached_tokens: num,
    })
    .optional(),
  leaks: z
    .array(
      z.looseObject({
        where: z.enum(LEAK_PLACES),
        detector: str,
        kind: z.enum(['literal', 'pattern', 'preset', 'canary']),
        encoding: str.optional(),
        fingerprint: str.optional(),
        own: z.boolean().optional(),
        carriers: z
          .array(
            z.looseObject({
              ts: num,
              host: str,
              protocol: z.enum(['http', 'connect', 'socks', 'dns']),
              where: z.enum(LEAK_PLACES),
              bytes: z.tuple([int, int]),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
  scan_incomplete: str.optional(),
});

export const CommandRecordSchema: z.ZodType<CommandRecord> = z.looseObject({
  id: str,
  role: z.enum(['agent', 'agent-version', 'tests', 'baseline-tests', 'setup', 'agent-log']),
  log_source: str.optional(),
  argv: z.array(str),
  display_argv: z.array(str),
  cwd: str,
  started_ms: num,
  duration_ms: num,
  exit_code: nullableNum,
  signal: str.nullable(),
  timed_out: z.boolean(),
  blocked: z.boolean(),
  spawn_error: str.optional(),
  stdout: str,
  stderr: str,
  stdout_truncated: z.boolean(),
  stderr_truncated: z.boolean(),
  stdout_bytes: num,
  stderr_bytes: num,
  policy_matches: z.array(z.looseObject({ pattern: str, mode: z.enum(['audit', 'enforce']) })),
});

export const TimelineEventSchema: z.ZodType<TimelineEvent> = z.looseObject({
  ts: num,
  phase: z.enum(['prepare', 'agent', 'tests', 'collect', 'analyse', 'report', 'observe']),
  event: str,
  detail: str.optional(),
});

const HistorySchema = z.looseObject({ commit: str, branch: str.nullable(), tags: num });

export const TestEvidenceSchema: z.ZodType<TestEvidence> = z.looseObject({
  ran: z.boolean(),
  passed: z.boolean(),
  exit_code: nullableNum,
  timed_out: z.boolean(),
  duration_ms: num,
  command_id: str.nullable(),
  reason: str.optional(),
  skipped: z.boolean().optional(),
  grading: z.enum(['copy', 'in-place']).optional(),
  grading_copy: z
    .looseObject({
      applied: z.array(str),
      not_applied: z.array(str),
      grader_files: num,
      dependencies: num,
      dependencies_changed: z.array(str),
      test_files: z.array(str).optional(),
      history: HistorySchema.optional(),
    })
    .optional(),
  results: z
    .looseObject({
      format: z.enum(TEST_REPORT_FORMATS).nullable(),
      cases: z.array(z.looseObject({ name: str, status: z.enum(['passed', 'failed', 'skipped']) })),
      reason: str.optional(),
      expected: z
        .looseObject({ source: z.enum(['baseline-run', 'declared']), count: num, names: z.array(str) })
        .optional(),
      sentinel: z
        .looseObject({
          token: str,
          names: z.array(str).optional(),
          twins: z
            .array(
              z.looseObject({
                name: str,
                of: str,
                file: str,
                status: z.enum(['passed', 'failed', 'skipped']).optional(),
                original: z.enum(['passed', 'failed', 'skipped']).optional(),
              }),
            )
            .optional(),
          files: z.array(str),
          exit_code: num,
          failed: z.array(str),
          passed: z.array(str),
          skipped: z.array(str),
        })
        .optional(),
    })
    .optional(),
});

export const DiffEvidenceSchema: z.ZodType<DiffEvidence> = z.looseObject({
  baseline_sha: str,
  files: z.array(
    z.looseObject({
      path: str,
      old_path: str.optional(),
      status: z.enum(['added', 'modified', 'deleted', 'renamed', 'type-changed']),
      added: num,
      deleted: num,
      binary: z.boolean(),
      link: z.looseObject({ target: str, escapes: z.boolean() }).optional(),
    }),
  ),
  added: num,
  deleted: num,
  patch_truncated: z.boolean(),
  patch_bytes: num,
  ignored_files: z.array(str),
  ignored_files_truncated: z.boolean(),
  workspace_git_changed: z.boolean(),
  ignored_changed: z.array(z.looseObject({ path: str, status: z.enum(['modified', 'deleted']) })).optional(),
  written_scan: z
    .looseObject({
      scanned: num,
      findings: z.array(
        z.looseObject({
          path: str,
          where: z.enum(['binary', 'ignored', 'nested-git']),
          detector: str,
          kind: str,
          fingerprint: str.optional(),
          encoding: str.optional(),
        }),
      ),
      unscanned: z.array(z.looseObject({ path: str, reason: str })),
    })
    .optional(),
});

export const WorkspaceEvidenceSchema: z.ZodType<WorkspaceEvidence> = z.looseObject({
  run_id: str,
  repo_dir: str,
  baseline_sha: str,
  template: str,
  files: num,
  history: z.union([HistorySchema, z.looseObject({ none: str })]).optional(),
});

const scalar = z.union([str, num, z.boolean(), z.null()]);
export const AgentEvidenceSchema: z.ZodType<AgentEvidence> = z.looseObject({
  adapter: str,
  name: str,
  version: str.nullable(),
  model: str.nullable(),
  metadata: z.record(str, scalar),
  outcome: z.discriminatedUnion('status', [
    z.looseObject({ status: z.literal('completed'), exit_code: z.literal(0) }),
    z.looseObject({ status: z.literal('failed'), exit_code: nullableNum, signal: str.nullable() }),
    z.looseObject({ status: z.literal('timed-out'), timeout_seconds: num }),
    z.looseObject({ status: z.literal('blocked'), reason: str }),
    z.looseObject({ status: z.literal('errored'), error: str }),
    z.looseObject({
      status: z.literal('stopped'),
      by: z.enum(['guard', 'interrupt', 'run-timeout', 'setup-failed']),
      reason: str,
    }),
    z.looseObject({ status: z.literal('none'), reason: str }),
  ]),
  command_id: str.nullable(),
  vendor_hosts: z.array(str).optional(),
  prompt_off: z.array(str).optional(),
  guard: z
    .looseObject({
      rule: str,
      alert_latency_ms: num,
      outcome: z.enum(['stopped', 'already-exited']),
      stopped_after_ms: nullableNum.optional(),
      exited_before_ms: num.optional(),
    })
    .optional(),
});

export const ObservationSchema: z.ZodType<Observation> = z.looseObject({
  sandbox: z.looseObject({
    kind: z.enum(SANDBOX_KINDS),
    version: str.optional(),
    isolated: z.boolean(),
    detail: str.optional(),
    facts: z.record(str, str).optional(),
  }),
  tracer: z.looseObject({
    requested: str,
    kind: z.enum([...TRACER_KINDS, 'off']),
    version: str.optional(),
    reason: str.optional(),
    lost_events: num,
    incomplete: str.optional(),
    warnings: z.array(str).optional(),
  }),
  network: z.looseObject({ mode: str, proxy: str.optional() }),
  kernel: str,
  fallbacks: z.array(z.looseObject({ component: str, wanted: str, used: str, reason: str })),
  window: z.looseObject({ opened_ms: num, closed_ms: num }).nullable(),
});

export const SkillsEvidenceSchema = z.looseObject({ files: z.array(str) });

/** One lockfile install of `setup.dependencies`, as it ran before the agent (not the agent's behaviour). */
export const InstalledDependencySchema = z.looseObject({
  /** The config entry, e.g. `setup.dependencies[0]`. */
  entry: str,
  manager: z.enum(['npm', 'pnpm', 'yarn', 'bun', 'pip']),
  /** pnpm, yarn, bun: the program that ran the install (`corepack pnpm` when package.json pins the version). */
  client: str.optional(),
  /** pip with a uv, poetry or pdm lockfile: which program installed it, as that tool is not run (pip, at the lockfile's versions). */
  installer: str.optional(),
  /** pip with a lockfile: what was installed that the lockfile does not list (stale), at the index's versions, unchecked. */
  unlocked: z.array(str).optional(),
  /** The lockfile or requirements file, relative to the workspace, and its sha256 before the install. */
  manifest: str,
  manifest_sha256: str,
  /** Every workspace file that decides the install (lockfile, package.json, included requirements), with its sha256 (null: missing). */
  inputs: z.array(z.looseObject({ path: str, sha256: str.nullable() })).optional(),
  /** Where the packages came from: a cache folder (absolute) or a mirror URL. */
  source: z.enum(['cache', 'mirror']),
  from: str,
  /** Whether the dependencies' own install code was allowed to run. */
  scripts: z.boolean(),
  /** pip: the virtual environment, relative to the workspace. */
  target: str.optional(),
  status: z.enum(['installed', 'failed']),
  /** The dependency cache entry (sha256 of what decides the install); `reused` when copied from it, with no install run. */
  cache_key: str.optional(),
  reused: z.boolean().optional(),
  /** Why it failed (exit, timeout, could not start). */
  error: str.optional(),
  exit_code: nullableNum,
  duration_ms: num,
  /** Its commands in commands.jsonl (role `setup`), where their output is. */
  command_ids: z.array(str),
});
export type InstalledDependency = z.output<typeof InstalledDependencySchema>;

/** evidence/setup.json: what setup installed, and where its network traffic went (mirrors only). */
export const SetupEvidenceSchema = z.looseObject({
  dependencies: z.array(InstalledDependencySchema),
  /** How setup reached its mirrors: through a proxy allowing only them, or the host's network, or none. */
  network: str,
  /** The setup proxy's records (empty without a mirror); never part of the agent's network evidence. */
  network_records: z.array(NetworkRecordSchema),
});
export type SetupEvidence = z.output<typeof SetupEvidenceSchema>;

export const CanaryEvidenceSchema: z.ZodType<CanaryEvidence> = z.looseObject({
  home: str,
  canaries: z.array(
    z.looseObject({ kind: str, path: str, token: str, dev: int.optional(), ino: int.optional() }),
  ),
});

const ProtectedChangeSchema = z.looseObject({
  path: str,
  change: z.enum(['created', 'removed', 'content', 'mode', 'link', 'type']),
  detail: str,
});

export const ProtectedStateEvidenceSchema: z.ZodType<ProtectedStateEvidence> = z.looseObject({
  files: z.array(z.looseObject({ path: str, dev: int, ino: int })),
  changes: z.array(ProtectedChangeSchema),
  test_changes: z.array(ProtectedChangeSchema).optional(),
  incomplete: z.array(str).optional(),
});

/** evidence/rules.json: the rule files' texts a run was judged by. */
export const RuleSourcesSchema = z.looseObject({
  sources: z.array(z.looseObject({ file: str, text: str })),
});
