/**
 * The evidence vocabulary. Every other folder imports from here; this folder imports none of them.
 * Evidence is what the collect half of a run writes to disk and what the analyse half reads back.
 */

import type { SandboxKind, TracerKind } from './kinds.js';

/** One system-level event, the same shape whichever tracer produced it. */
export type SysEvent = {
  /** Monotonic order within the run. */
  seq: number;
  /** Milliseconds since the observation window opened. */
  ts: number;
  pid: number;
  ppid: number;
  /** Executable of the acting process (path when known, else the kernel's comm name). */
  exe: string;
  kind: SysEventKind;
  /** The real syscall name: 'openat', 'execve', 'connect', ... */
  syscall: string;
  path?: string;
  /**
   * The path as the process wrote it, when `path` differs: an alias such as
   * `/proc/self/root/etc/shadow`, `/proc/self/fd/3/id_rsa` or `/tmp/link/../x` whose file the
   * kernel resolved (the tracer records that one in `path`), or that the rules made canonical.
   */
  path_as_written?: string;
  /**
   * The inode and device (as stat() gives them) of the file the kernel opened or ran, where the
   * tracer can give them (the compiled eBPF collector): the file's identity, whatever path reached it.
   */
  ino?: number;
  dev?: number;
  /**
   * A descriptor copy onto standard input or output (`syscall` dup, dup2, dup3 or fcntl, `result` 0
   * or 1) whose file is a pipe or socket: its inode, the same at both ends, so a pipe's writer and
   * reader are joined by it (downloads.ts). A file there is named in `path` instead.
   */
  pipe?: number;
  /** Second path of rename/link/symlink calls (the destination). */
  path2?: string;
  access?: 'read' | 'write' | 'create';
  argv?: string[];
  /**
   * An exec's loader and interpreter variables (`NAME=value`, in order, repeats kept), the list in
   * exec-env.ts; absent where the tracer does not record the environment (bpftrace), empty where
   * none was set.
   */
  env?: string[];
  /** The exec's environment had more than the recorded bounds (exec-env.ts): `env` is not all of it. */
  env_truncated?: boolean;
  /**
   * The program the kernel ran when it is not the file the exec named: a script's `#!` interpreter
   * (or the target of a link such as sh -> dash). The collector records it; strace and bpftrace do not.
   */
  interpreter?: string;
  /**
   * The process a call acts on (process_vm_readv, process_vm_writev, a signal or pidfd_open), as the
   * caller named it (its pid namespace's number).
   */
  target_pid?: number;
  /** Whether `target_pid` is the caller's own process; absent where the tracer could not tell (bpftrace). */
  target_self?: boolean;
  /**
   * The user or group ids a setid call (setuid, setreuid, setresuid and their gid twins) asks for, in
   * argument order, -1 meaning "left as it is"; where the tracer records them (strace).
   */
  ids?: number[];
  cwd?: string;
  addr?: SocketAddress;
  /** The mode a chmod-family call sets (chmod, fchmod, fchmodat): permission, setuid, setgid and sticky bits. */
  mode?: number;
  /**
   * Symbolic flags the rules judge (syscall-flags.ts): the CLONE_NEW* namespace flags of clone,
   * clone3, unshare and setns; the domain, type and ICMP protocol of socket (`AF_PACKET`, `SOCK_RAW`).
   */
  flags?: string[];
  /** Return value: >= 0 success, negative errno on failure. */
  result?: number;
  /** A string field was cut by the tracer's length limit. */
  truncated?: boolean;
};

export type SysEventKind =
  | 'exec'
  | 'exit'
  | 'fork'
  | 'open'
  | 'write-meta'
  | 'connect'
  | 'privilege'
  | 'other';

export type SocketAddress = {
  family: 'inet' | 'inet6' | 'unix';
  ip?: string;
  port?: number;
  host?: string;
  path?: string;
};

/** One destination request seen by the egress proxy. */
export type NetworkRecord = {
  ts: number;
  host: string;
  port: number;
  protocol: 'http' | 'connect' | 'socks' | 'dns';
  decision: 'allowed' | 'denied';
  reason: string;
  method?: string;
  bytes_up?: number;
  bytes_down?: number;
  /**
   * The process that opened the connection or sent the query, identified per connection by the
   * sandbox bridge. Absent where nothing identifies clients (runs without the bridge, older runs).
   */
  client?: NetworkClient;
  /**
   * The token usage a model provider's answer stated, read by the proxy from a plain-HTTP answer
   * it forwarded (an HTTPS tunnel is opaque to it).
   */
  usage?: WireUsage;
  /**
   * The run's canary tokens and the secret detectors' matches in what this request carried out:
   * by detector and fingerprint only, never the value.
   */
  leaks?: NetworkLeak[];
  /** Why part of what this request carried out was not scanned (past the scan's bound, or not decodable). */
  scan_incomplete?: string;
};

/** Where in a request a leak was found. */
export const LEAK_PLACES = [
  'url',
  'header',
  'credential-header',
  'body',
  'tunnel',
  'host',
  'host-sequence',
  'websocket',
  'pieces',
] as const;
export type LeakPlace = (typeof LEAK_PLACES)[number];

/**
 * A detector's match in what a request carried out. `where`: the request target, a header (an
 * Authorization-like one is `credential-header`), the body, the bytes of a tunnel, the host name
 * asked for, the names of successive DNS lookups under one domain read as one text, a WebSocket
 * message (unmasked, inflated), or `pieces`: a canary cut into pieces that several requests or
 * places carried (each named in `carriers`), found on the request that completed it.
 */
export type NetworkLeak = {
  where: LeakPlace;
  detector: string;
  kind: 'literal' | 'pattern' | 'preset' | 'canary';
  /** How the value was carried: `exact`, or the steps undone (`gzip+base64`, `split+hex`). */
  encoding?: string;
  fingerprint?: string;
  /** The match is one of the credentials the run gave the agent (its model key): exempt only to its hosts. */
  own?: boolean;
  /** For `pieces`: every request that carried a piece, in the order they were seen. */
  carriers?: PieceCarrier[];
};

/** A request that carried a piece of a canary: when, to where, and in which part of it. */
export type PieceCarrier = {
  ts: number;
  host: string;
  protocol: NetworkRecord['protocol'];
  where: LeakPlace;
  /** The token bytes `[from, to)` it carried. */
  bytes: [number, number];
};

/** One answer's token usage as its provider stated it; `input_tokens` includes the cached ones. */
export type WireUsage = {
  api: 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
};

/**
 * `pid` is the host's pid, the one the tracer records, so a record joins the process table.
 * `ns_pid` is the same process's pid inside the sandbox's PID namespace, `port` its local port.
 * When the process could not be identified (it had already exited, or the connection did not
 * come through the bridge), `pid` is null and `reason` says why: a record is never guessed.
 */
export type NetworkClient =
  | { pid: number; exe?: string; ns_pid?: number; port?: number }
  | { pid: null; reason: string; exe?: string; ns_pid?: number; port?: number };

/** A command the harness itself started (agent, version probe, tests). */
export type CommandRecord = {
  id: string;
  /** `agent-log`: a command the agent's own log says it ran (CI mode): claimed, not observed. */
  /** `baseline-tests`: the test command on the untouched baseline, to learn which tests the task has. */
  role: 'agent' | 'agent-version' | 'tests' | 'baseline-tests' | 'setup' | 'agent-log';
  /** For `agent-log`: the log file and line it was read from. */
  log_source?: string;
  argv: string[];
  /** Argv as shown to people: prompts and secrets replaced. */
  display_argv: string[];
  cwd: string;
  started_ms: number;
  duration_ms: number;
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  /** Refused before it ran by the command policy in enforce mode. */
  blocked: boolean;
  /** Could not be started at all (missing binary, permission). */
  spawn_error?: string;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  stdout_bytes: number;
  stderr_bytes: number;
  policy_matches: PolicyMatch[];
};

export type PolicyMatch = { pattern: string; mode: 'audit' | 'enforce' };

export type TestEvidence = {
  ran: boolean;
  passed: boolean;
  exit_code: number | null;
  timed_out: boolean;
  duration_ms: number;
  command_id: string | null;
  /** Why the tests did not run, if they did not. */
  reason?: string;
  /** Set when the user asked for no tests (`ci --no-tests`): not running them is then not a failure. */
  skipped?: boolean;
  /** Where the tests ran: a grading copy made by the harness (`copy`), or the agent's own folder. */
  grading?: 'copy' | 'in-place';
  /** What the grading copy was made of (with `grading: copy`). */
  grading_copy?: GradingCopyEvidence;
  /** The tests by name, from the runner's own report, and what they are held to. */
  results?: TestResults;
};

export const TEST_REPORT_FORMATS = ['junit', 'tap', 'go-json', 'cargo', 'unittest', 'jest-json'] as const;
export type TestReportFormat = (typeof TEST_REPORT_FORMATS)[number];

export type TestCaseStatus = 'passed' | 'failed' | 'skipped';
export type TestCaseResult = { name: string; status: TestCaseStatus };

export type TestResults = {
  /** The report read; null when the runner gave none agentguard can read (`reason` says why). */
  format: TestReportFormat | null;
  cases: TestCaseResult[];
  reason?: string;
  /**
   * The tests the untouched baseline collected (run once per baseline content and cached), or the
   * count the task declares (`min_tests`): each one must run here and not be skipped.
   */
  expected?: { source: 'baseline-run' | 'declared'; count: number; names: string[] };
  /** The harness's failing sentinel test, planted in the grading copy's test files; its cases are not in `cases`. */
  sentinel?: SentinelEvidence;
};

/**
 * A test the harness adds to the task's test files at grading time, built to fail in every honest
 * run (its assertions are given arguments that must fail): passing, or missing from the report,
 * it proves the test framework or its report was changed by the code under test.
 */
export type SentinelEvidence = {
  /** A random id of this planting (older bundles: the token every planted test's name carried). */
  token: string;
  /** The planted probe tests' names (the last part of the report's name), drawn from each file's own words. */
  names?: string[];
  /**
   * The planted twins: copies of the task's own tests with one assertion negated, each beside its
   * original; both passing cannot happen in an honest run. Outcomes as the report gives them.
   */
  twins?: { name: string; of: string; file: string; status?: TestCaseStatus; original?: TestCaseStatus }[];
  /** The test files it was planted in. */
  files: string[];
  /** The runner's exit status when its tests pass but the sentinel fails. */
  exit_code: number;
  /** The planted tests the report names, by outcome. */
  failed: string[];
  passed: string[];
  skipped: string[];
};

export type GradingCopyEvidence = {
  /** The agent's changes taken into the copy. */
  applied: string[];
  /** The agent's changes left out: outside allowed_paths, or test and grader files. */
  not_applied: string[];
  grader_files: number;
  /** Installed dependency files carried over, unchanged since the baseline. */
  dependencies: number;
  /** Installed dependency files the agent changed or deleted, left out of the copy. */
  dependencies_changed: string[];
  /** The copy's files under test_paths or grader_paths as the tests start (grader-only files aside). */
  test_files?: string[];
  /** The template repository's history the copy's `.git` holds (HEAD at the base commit). */
  history?: HistoryEvidence;
};

/** The template repository's history taken for grading: its HEAD (the task's base commit), branch and tags. */
export type HistoryEvidence = { commit: string; branch: string | null; tags: number };

/** A protected file's difference between the start and the end of the agent (the final-state backstop). */
export type ProtectedChange = {
  /** The path as the agent saw it. */
  path: string;
  change: 'created' | 'removed' | 'content' | 'mode' | 'link' | 'type';
  /** Before and after, in words: hashes, modes, link targets. */
  detail: string;
};

/** evidence/protected-state.json: the run HOME and the workspace's git folder before and after the agent. */
export type ProtectedStateEvidence = {
  /** The regular files recorded before the agent, with their identity (stat's dev and ino). */
  files: { path: string; dev: number; ino: number }[];
  changes: ProtectedChange[];
  /** What changed while the tests ran (they run the agent's code with the same HOME); absent: not recorded. */
  test_changes?: ProtectedChange[];
  /** Folders not recorded to the end (unreadable, or the entry bound was reached). */
  incomplete?: string[];
};

export type DiffFileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'type-changed';

export type DiffFile = {
  path: string;
  old_path?: string;
  status: DiffFileStatus;
  added: number;
  deleted: number;
  binary: boolean;
  /** Set when the path is a symbolic link after the run. */
  link?: { target: string; escapes: boolean };
};

export type DiffEvidence = {
  baseline_sha: string;
  files: DiffFile[];
  added: number;
  deleted: number;
  /** The unified patch was cut at the byte limit (content scans must fail closed). */
  patch_truncated: boolean;
  patch_bytes: number;
  /** Untracked files hidden by .gitignore that did not exist at the baseline (bounded list). */
  ignored_files: string[];
  ignored_files_truncated: boolean;
  /** The agent removed or replaced the workspace's own .git; the diff still used the harness copy. */
  workspace_git_changed: boolean;
  /**
   * Folders below the workspace root with a `.git` of their own (nested repositories, submodules).
   * Their files are in `files` like any others; the `.git` itself is not compared.
   */
  nested_repositories?: string[];
  /** Workspace entries git cannot hold or the harness could not read (fifo, socket, EACCES), and why. */
  skipped_files?: { path: string; reason: string }[];
  /** The diff could not be taken at all; `files` is empty and nothing in it can be vouched for. */
  error?: string;
  /**
   * Git-ignored files present at the baseline (what setup installed: node_modules, .venv) that the
   * agent changed or deleted. The diff's commit holds only what git tracks, so this is how an edit to
   * an installed dependency shows.
   */
  ignored_changed?: { path: string; status: 'modified' | 'deleted' }[];
  /** What the patch does not show as text lines (binary, ignored, nested git), scanned byte for byte. */
  written_scan?: WrittenScan;
};

export type WrittenScan = {
  /** Files read and scanned. */
  scanned: number;
  findings: {
    path: string;
    where: 'binary' | 'ignored' | 'nested-git';
    detector: string;
    kind: string;
    fingerprint?: string;
    encoding?: string;
  }[];
  /** What could not be scanned, and why: the secret-content check fails closed on it. */
  unscanned: { path: string; reason: string }[];
};

export type TimelineEvent = {
  ts: number;
  phase: 'prepare' | 'agent' | 'tests' | 'collect' | 'analyse' | 'report' | 'observe';
  event: string;
  detail?: string;
};

export type { SandboxKind, TracerKind } from './kinds.js';

/** What observed the run, so a reader knows how much the syscall evidence can be trusted. */
export type Observation = {
  sandbox: {
    kind: SandboxKind;
    version?: string;
    isolated: boolean;
    detail?: string;
    facts?: Record<string, string>;
  };
  tracer: {
    requested: string;
    kind: TracerKind;
    version?: string;
    reason?: string;
    lost_events: number;
    /** The event stream has a gap (the tracer died or fell behind mid-run): why. */
    incomplete?: string;
    /**
     * The tracer recorded bind calls, so the evidence says which ports the run's own servers hold.
     * Absent in evidence from before agentguard traced them: there a loopback port counts as the run's.
     */
    binds?: boolean;
    /**
     * `as-written`: the tracer recorded each path as the call gave it, not the file the kernel
     * resolved, and no file identities (bpftrace): an alias, a descriptor-relative name or a hard
     * link is judged by its text, weaker evidence than the collector's or strace's. Absent: resolved.
     */
    paths?: 'as-written';
    /** The tracer's non-fatal problems (probes this kernel lacks, processes killed at stop, ...). */
    warnings?: string[];
    /** Wall-clock milliseconds (Unix epoch) at which the events' `ts` 0 falls: joins them with other clocks. */
    zero_wall_ms?: number;
  };
  /** `endpoint`: the loopback ip:port of a proxy the agent reaches over TCP (sandbox local), not through the bridge. */
  network: { mode: string; proxy?: string; endpoint?: string };
  kernel: string;
  fallbacks: { component: string; wanted: string; used: string; reason: string }[];
  /** `opened_wall_ms`: when the window opened (Unix epoch ms), the zero of the network records' `ts`. */
  window: { opened_ms: number; closed_ms: number; opened_wall_ms?: number } | null;
};

export type WorkspaceEvidence = {
  run_id: string;
  repo_dir: string;
  baseline_sha: string;
  template: string;
  files: number;
  /** The template's history given to the grading copies, or why there is none. */
  history?: HistoryEvidence | { none: string };
};
