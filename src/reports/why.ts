import { posix } from 'node:path';
import type { Alert } from '../analysis/rules/types.js';
import { BLOCKING_SEVERITIES, SEVERITY_POINTS } from '../analysis/score.js';
import type { CheckResult } from '../analysis/types.js';
import type { CheckId } from '../config/check-ids.js';
import type { Severity } from '../config/schema.js';
import type { CommandRecord, TestEvidence } from '../evidence/types.js';

/**
 * Why a run did not pass, in the order that decided it: the blocking alerts, the tests that failed
 * by name, the failed checks; then the last lines the failing commands printed, where the cause
 * usually is ("No API key found", `Unknown command: "tset"`). Built once with the report (and
 * redacted with it), so the console, report.md, report.html and `reports show` say the same.
 */
export type ReportWhy = {
  reasons: WhyReason[];
  /** Reasons left out by the bound, by kind. */
  omitted: { alerts: number; tests: number };
  output: OutputTail[];
};

export type WhyReason =
  /** The run was ended before it finished (a setup step or the harness failed, a signal, the run's time limit). */
  | { kind: 'stopped'; reason: string }
  | {
      kind: 'alert';
      rule: string;
      severity: Severity;
      message: string;
      /** The acting process first, up to the agent: `exe` or `argv[0]` of each. */
      chain: string[];
      phase?: 'tests';
    }
  | { kind: 'test'; name: string; status: 'failed' | 'skipped' | 'missing' }
  | {
      kind: 'check';
      id: CheckId;
      severity: Severity;
      message: string;
      /** The last line the command behind this check printed (agent-exit: the agent; tests-pass: the tests). */
      last_words?: string;
    };

export type OutputTail = {
  command_id: string;
  role: CommandRecord['role'];
  /** The program as shown to people (display argv, never the prompt). */
  program: string;
  exit_code: number | null;
  stream: 'stdout' | 'stderr';
  lines: string[];
  /** Lines before the tail that were left out. */
  omitted_lines: number;
};

/** Bounds: a reader takes in ten seconds what is shown, and the rest is one click away in the evidence. */
export const WHY_LIMITS = { alerts: 5, tests: 10, tailLines: 12, lineChars: 240 } as const;

type WhyInput = {
  result: 'PASS' | 'FAIL' | 'ERROR';
  checks: readonly CheckResult[];
  alerts: readonly Alert[];
  tests: TestEvidence;
  commands: readonly CommandRecord[];
  /** Why the run was ended from outside the agent (its outcome's reason), when it was. */
  stopped?: string;
  /** The task prompt is private (the report holds its hash): an agent echoing it has it cut from its lines. */
  prompt: string;
};

/** Null for a run that passed: there is nothing to explain. */
export function explainVerdict(input: WhyInput): ReportWhy | null {
  if (input.result === 'PASS') return null;
  const byWeight = <T extends { severity: Severity }>(list: T[]): T[] =>
    [...list].sort((a, b) => SEVERITY_POINTS[b.severity] - SEVERITY_POINTS[a.severity]);
  const blockingAlerts = byWeight(input.alerts.filter((a) => BLOCKING_SEVERITIES.has(a.severity)));
  const failedTests = failingTests(input.tests);
  const failedChecks = byWeight(input.checks.filter((c) => !c.passed));
  const agent = lastOf(input.commands, (c) => c.role === 'agent');
  const tests = input.tests.command_id
    ? input.commands.find((c) => c.id === input.tests.command_id)
    : undefined;
  const checkReasons = failedChecks.map((check): WhyReason => {
    // The tests' last words matter only when no failing test could be named.
    const behind =
      check.id === 'agent-exit'
        ? agent
        : check.id === 'tests-pass' && failedTests.length === 0
          ? tests
          : undefined;
    const found = behind ? lastWords(behind) : undefined;
    const words = found === undefined ? undefined : withoutPrompt(input.prompt)(found);
    return {
      kind: 'check',
      id: check.id,
      severity: check.severity,
      message: check.message,
      ...(words !== undefined && { last_words: words }),
    };
  });
  // An agent that failed to run (no API key, a crash) is why its tests fail: it comes before them.
  const agentFailed = checkReasons.filter((r) => r.kind === 'check' && r.id === 'agent-exit');
  const reasons: WhyReason[] = [
    ...(input.stopped === undefined ? [] : [{ kind: 'stopped' as const, reason: input.stopped }]),
    ...blockingAlerts.slice(0, WHY_LIMITS.alerts).map(alertReason),
    ...agentFailed,
    ...failedTests.slice(0, WHY_LIMITS.tests),
    ...checkReasons.filter((r) => !agentFailed.includes(r)),
  ];
  const failing = input.commands.filter(
    (c) =>
      (c.role === 'setup' && commandFailed(c)) ||
      (c === agent && commandFailed(c)) ||
      (c === tests && !input.tests.passed && !input.tests.skipped),
  );
  return {
    reasons,
    omitted: {
      alerts: Math.max(0, blockingAlerts.length - WHY_LIMITS.alerts),
      tests: Math.max(0, failedTests.length - WHY_LIMITS.tests),
    },
    output: failing.flatMap(tails).map((t) => ({ ...t, lines: t.lines.map(withoutPrompt(input.prompt)) })),
  };
}

/** The one line a console or a list shows first: the most decisive reason. */
export function whyLine(why: ReportWhy): string | null {
  const first = why.reasons[0];
  if (first === undefined) return null;
  switch (first.kind) {
    case 'stopped':
      return first.reason;
    case 'alert':
      return `alert ${first.rule} (${first.severity}): ${first.message}${first.chain.length > 0 ? ` — by ${first.chain.join(' ← ')}` : ''}`;
    case 'test':
      return `test ${first.status}: ${first.name}`;
    case 'check':
      return `${first.id}: ${first.message}${first.last_words ? ` — it printed: ${first.last_words}` : ''}`;
  }
}

function alertReason(alert: Alert): WhyReason {
  return {
    kind: 'alert',
    rule: alert.rule,
    severity: alert.severity,
    message: alert.message,
    chain: alert.process.chain.map((p) => posix.basename(p.exe) || p.argv[0] || String(p.pid)).slice(0, 6),
    ...(alert.phase !== undefined && { phase: alert.phase }),
  };
}

function failingTests(tests: TestEvidence): WhyReason[] {
  const results = tests.results;
  if (!results) return [];
  const out: WhyReason[] = results.cases
    .filter((c) => c.status === 'failed')
    .map((c) => ({ kind: 'test', name: c.name, status: 'failed' }));
  const seen = new Map(results.cases.map((c) => [c.name, c.status]));
  for (const name of results.expected?.names ?? []) {
    const status = seen.get(name);
    if (status === undefined) out.push({ kind: 'test', name, status: 'missing' });
    else if (status === 'skipped') out.push({ kind: 'test', name, status: 'skipped' });
  }
  return out;
}

function commandFailed(c: CommandRecord): boolean {
  return c.exit_code !== 0 || c.signal !== null || c.timed_out || c.blocked || c.spawn_error !== undefined;
}

function lastOf<T>(list: readonly T[], pick: (item: T) => boolean): T | undefined {
  for (let i = list.length - 1; i >= 0; i -= 1) if (pick(list[i] as T)) return list[i];
  return undefined;
}

/**
 * Words that say what went wrong, in the spellings tools use: `Unknown command: "tset"` (npm), `sh:
 * 1: tset: not found`, `make: *** No rule to make target`, `error: no such command` (cargo),
 * `ModuleNotFoundError`, `No API key found`, `permission denied`.
 */
const TROUBLE =
  /\b(error|errors|unknown|not found|no such|no rule|cannot|can't|could not|couldn't|unable|missing|denied|refused|invalid|failed|fatal|exception|not set|required|no [\w-]+ (key|module|file|command)s?)\b|\*\*\*|Error\b/i;
const LEVEL_PREFIX = /^[\w@./-]+ (error|ERR!)(:|\b)\s*/;
/** How far from the end a telling line is looked for: past that, it is not why the command ended. */
const TROUBLE_WINDOW = 20;

/**
 * The line that says why, stderr first (where programs say what went wrong): the last one near the
 * end that names trouble, else the last one with words in it. A help text printed after the
 * error (`npm help`, `Did you mean…`) does not hide it.
 */
function lastWords(c: CommandRecord): string | undefined {
  if (c.spawn_error !== undefined) return clip(c.spawn_error);
  for (const text of [c.stderr, c.stdout]) {
    const lines = printableLines(text);
    // `npm error Did you mean this?`: a tool's own level prefix on every line names no trouble.
    const telling = lastOf(lines.slice(-TROUBLE_WINDOW), (l) => TROUBLE.test(l.replace(LEVEL_PREFIX, '')));
    // A closing brace or a row of dashes says nothing: the last line with a word in it does.
    const line = telling ?? lastOf(lines, (l) => /\p{L}{2}/u.test(l));
    if (line !== undefined) return line;
  }
  return undefined;
}

function tails(c: CommandRecord): OutputTail[] {
  // A capture cut in the middle says so in a line of its own (BoundedBuffer), which the tail keeps.
  const streams = [
    ['stderr', c.stderr],
    ['stdout', c.stdout],
  ] as const;
  const program = c.display_argv.slice(0, 3).join(' ');
  return streams.flatMap(([stream, text]) => {
    const lines = printableLines(text);
    if (lines.length === 0) return [];
    const kept = lines.slice(-WHY_LIMITS.tailLines);
    return [
      {
        command_id: c.id,
        role: c.role,
        program,
        exit_code: c.exit_code,
        stream,
        lines: kept,
        omitted_lines: lines.length - kept.length,
      },
    ];
  });
}

/** Terminal colour codes and other control characters out, blank lines dropped, each line bounded. */
function printableLines(text: string): string[] {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping terminal escapes is the point
      .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g, '')
      .split(/\r?\n|\r/)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the same
      .map((line) => clip(line.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').trimEnd()))
      .filter((line) => line.trim() !== '')
  );
}

/** Lines of the prompt long enough to be its own words are replaced wherever they appear. */
function withoutPrompt(prompt: string): (line: string) => string {
  const parts = prompt
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length >= 12)
    .sort((a, b) => b.length - a.length);
  return (line) => parts.reduce((text, part) => text.replaceAll(part, '[the task prompt]'), line);
}

function clip(line: string): string {
  return line.length > WHY_LIMITS.lineChars ? `${line.slice(0, WHY_LIMITS.lineChars - 1)}…` : line;
}
