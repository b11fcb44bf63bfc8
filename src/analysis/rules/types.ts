import type { Severity } from '../../config/schema.js';
import type { DiffFile, NetworkRecord, ProtectedChange, SysEvent } from '../../evidence/types.js';
import type { Expr } from './ast.js';
import type { Kind, PatchFindingKind } from './vocabulary.js';

/** The five things a security rule can be about. */
export const RULE_CLASSES = [
  'secrets',
  'integrity',
  'execution',
  'network',
  'persistence',
  'evasion',
] as const;
export type RuleClass = (typeof RULE_CLASSES)[number];

/** One process as an alert names it. */
export type AlertProcessRef = { pid: number; exe: string; argv: string[] };

/**
 * One security finding. report.json carries `alerts[]` exactly in this shape. The same rule firing
 * on the same resource from the same process is one alert whose `count` says how often it fired.
 */
export type Alert = {
  rule: string;
  class: RuleClass;
  severity: Severity;
  description: string;
  /** The rule's output template filled from the event. */
  message: string;
  /** The system call (or `proxy-http`, `proxy-connect`, `proxy-socks`, `dns`, `diff`) that fired it. */
  syscall: string;
  path?: string;
  /** The path as the process wrote it, when the kernel resolved it to `path` (an alias, a link, a descriptor). */
  path_as_written?: string;
  host?: string;
  port?: number;
  /** Sequence number of the first matching event (-1 when no event is known, e.g. a diff finding). */
  seq: number;
  /** Milliseconds since the observation window opened, of the first matching event (-1 when unknown). */
  ts: number;
  count: number;
  /** Set when the change was found by comparing the file before and after the agent (final-state.ts): what changed. */
  final_state?: string;
  /** Set when the alert came from the test phase (the tests are observed too); absent: the agent. */
  phase?: 'tests';
  /** The model's tool call (its step in the report's trajectory) whose process raised it, when known. */
  tool_call?: number;
  process: AlertProcessRef & {
    /** From the acting process up to the agent's root process, the acting process first. */
    chain: AlertProcessRef[];
  };
};

/** Values a run fills the rule placeholders with. Paths are absolute. */
export type RuleContext = {
  /** `$WORKSPACE`: the agent's workspace as the traced processes see it. */
  workspace: string;
  /** `$HOME`: the sandbox HOME as the traced processes see it. */
  home: string;
  /** `$CANARIES`: absolute paths of the planted fake credentials. */
  canaries: readonly string[];
  /**
   * Files known by identity (`fileKey(dev, ino)` → their absolute path): the canaries (paths as in
   * `canaries`) and the protected files recorded before the agent, where recorded.
   */
  knownFiles?: ReadonlyMap<string, string>;
  /** `$ALLOWED_HOSTS`: the task's network allow list plus the hosts-map names (host[:port], *.domain, IP, *). */
  allowedHosts: readonly string[];
  /** `$STATE_DIRS`: files and folders the agent profile declares as its own state (e.g. CODEX_HOME). */
  stateDirs: readonly string[];
  /** `$VENDOR_HOSTS`: the agent vendor's own hosts from its profile (host names, `*.domain`); unset: none. */
  vendorHosts?: readonly string[];
  /**
   * `$HARNESS_ENDPOINTS`: loopback ip:port the harness's proxy and DNS listen on. Default the
   * sandbox bridge's 127.0.0.1:3128 and :53; a run adds its advisory proxy's port (sandbox local).
   */
  harnessEndpoints?: readonly string[];
  /**
   * The tracer recorded bind calls (observation.tracer.binds). Unset: the evidence cannot tell the
   * run's own servers from other services, so `addr.listened` holds for every port.
   */
  bindsRecorded?: boolean;
  /**
   * The tracer records no copies of descriptors onto standard input or output (bpftrace: its
   * evidence is `tracer.paths: as-written`): a shell's read before a fork is taken as a redirect.
   */
  stdioCopiesUnrecorded?: boolean;
  /**
   * The unprivileged user every sandboxed command ran as (observation sandbox.facts.run_user). The
   * sandboxes that set it also drop every capability and set no_new_privs, so a process of the run
   * can hold no other ids than these.
   */
  runUser?: { uid: number; gid: number };
  /** `$LOCAL_SERVICES`: the ip:port the config's network.hosts maps names to (servers standing in for allowed hosts). */
  localServices?: readonly string[];
};

export type PatchFinding = {
  /** Workspace-relative path of the file the line was added to. */
  file: string;
  /** 1-based line number in the new file (0 when the finding is about the file as a whole). */
  line: number;
  finding: PatchFindingKind;
  /** The added text (trimmed, at most 200 characters); for a `canary`, what was found, never the value. */
  text: string;
  /** For a `canary` finding: the detector's match, by fingerprint, and where in the written bytes. */
  leak?: WrittenLeak;
};

/** A detector's match in what the agent wrote: in an added line, or a binary, ignored or nested-git file. */
export type WrittenLeak = {
  where: 'added-line' | 'binary' | 'ignored' | 'nested-git';
  detector: string;
  kind: 'literal' | 'pattern' | 'preset' | 'canary';
  encoding?: string;
  fingerprint?: string;
};

/** One validated rule, conditions resolved (macros and lists inlined) but placeholders still unbound. */
export type Rule = {
  id: string;
  description: string;
  class: RuleClass;
  severity: Severity;
  condition: Expr;
  /** Each exception, and each config allow entry, suppresses the rule where it matches. */
  exceptions: { name: string; expr: Expr }[];
  /** Output template with `{field}` references. */
  output: string;
  /** Set when the rule fires only on a burst: `count` matching events within `withinMs`. */
  threshold?: { count: number; withinMs: number };
  /** Event kinds the condition can match (the engine's index). */
  kinds: readonly Kind[];
  /** The file the rule came from (for messages). */
  file: string;
};

/** A validated, ready-to-compile rule set. Built by `buildRuleSet`, bound to a run by `createMatcher`. */
export type RuleSet = {
  rules: readonly Rule[];
  files: readonly string[];
  /** The rule files' lists by name (the engine reads `package_managers`: preload.ts's installers). */
  lists?: ReadonlyMap<string, readonly string[]>;
};

/**
 * The `security:` block of a benchmark config, after zod defaults. `rules` holds absolute paths.
 * Allow entries: a string is a condition; `{path}` a glob (relative = inside the workspace, `~/` =
 * HOME); `{host}` an allow-list entry (`name`, `*.domain`, IP, optional `:port`).
 */
export type SecurityOptions = {
  default_rules: boolean;
  rules: string[];
  disable: string[];
  allow: Record<string, AllowEntry[]>;
  severity: Partial<Record<string, Severity>>;
};

export type AllowEntry = string | { path: string } | { host: string } | { condition: string };

/** Batch input: what an evidence bundle holds that rules look at. */
export type RuleInput = {
  syscalls: readonly SysEvent[];
  network?: readonly NetworkRecord[];
  /** The unified diff of the agent's changes, for the install-hook findings. */
  patch?: string;
  files?: readonly DiffFile[];
  /** The task's test_paths: the grading copy never takes them, so their code cannot reach into the grader. */
  testPaths?: readonly string[];
  /** The run's canaries found in what the agent wrote (`writtenCanaries`), judged as `canary` patch findings. */
  written?: readonly PatchFinding[];
  /** What changed between the start and the end of the agent, by absolute path (final-state.ts). */
  finalState?: readonly ProtectedChange[];
  /**
   * Calls of an earlier phase, learned and not judged: the tests run what the agent left, so a
   * file the agent wrote is `program.written` (and its writer known) when the tests run it.
   */
  before?: readonly SysEvent[];
};

/** A streaming matcher: feed events in arrival order; each call returns the alerts it newly raised. */
export type Matcher = {
  onEvent(event: SysEvent): Alert[];
  /** An event of an earlier phase: the process table and files learn it; no rule is judged. */
  learn(event: SysEvent): void;
  onRecord(record: NetworkRecord): Alert[];
  /** Findings from the final diff, attributed to the last process that wrote each file. */
  onPatch(findings: readonly PatchFinding[]): Alert[];
  /**
   * The final state's changes, judged as changes of their path by the persistence and integrity
   * rules, attributed to the last call that changed the path; a change such a rule already
   * alerted on at that path adds nothing.
   */
  onFinalState(changes: readonly ProtectedChange[]): Alert[];
  /** Every alert so far, deduplicated (counts up to date), in the order first raised. */
  alerts(): Alert[];
};
