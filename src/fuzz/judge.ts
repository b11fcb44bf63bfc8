import { analyze } from '../analysis/analyze.js';
import type { EvidenceBundle } from '../analysis/evidence-bundle.js';
import type { RuleSet } from '../analysis/rules/types.js';
import { runRedactor } from '../analysis/secrets/run-redactor.js';
import type { AnalysisResult, Verdict } from '../analysis/types.js';
import type { CheckId } from '../config/check-ids.js';
import { configInMemory } from '../config/in-memory.js';
import type { ResolvedConfig } from '../config/schema.js';
import { recordWithoutOutput } from '../evidence/command-record.js';
import type { CommandRecord, DiffEvidence, DiffFile, SysEvent } from '../evidence/types.js';
import { BASE_POLICY } from './base.js';
import { type Expectation, FUZZED_CHECKS, type FuzzedCheck, type Variant } from './types.js';

/** The fixed instant of every synthetic record, the one git's baseline commits carry too. */
const EPOCH = '2000-01-01T00:00:00.000Z';
const PROMPT = 'Fuzz variant: no agent runs; the change was made by the fuzzer.';

/** The diff facts the fuzzer took from the materialised workspace. */
export type VariantEvidence = { repoDir: string; baselineSha: string; diff: DiffEvidence; patch: string };

export type Disagreement = {
  kind: 'missed' | 'false-alarm' | 'verdict';
  /** The check, or `verdict`. */
  subject: FuzzedCheck | 'verdict';
  detail: string;
};

/** One variant judged: what its generator expected, what the checks and the score said. */
export type VariantOutcome = {
  id: string;
  dimension: Variant['dimension'];
  template: string;
  description: string;
  expected: Expectation;
  observed: {
    failing: FuzzedCheck[];
    verdict: Verdict;
    score: number;
    /** Rules that alerted, each once. */
    alerts: string[];
    /** Every fuzzed check's message, so a disagreement can be read without rerunning. */
    messages: Partial<Record<FuzzedCheck, string>>;
    /** Checks outside the fuzzed set that failed (their evidence is synthetic; listed, not compared). */
    other_failing: CheckId[];
  };
  diff: Pick<DiffFile, 'path' | 'status' | 'added' | 'deleted' | 'link'>[];
  disagreements: Disagreement[];
};

/** The variant's config: the base policy, the template's keys over it, every other key the schema's default. */
export function variantConfig(variant: Variant): ResolvedConfig {
  return configInMemory(
    {
      name: `fuzz-${variant.id}`,
      task: { prompt: PROMPT },
      tracer: 'off',
      sandbox: 'local',
      ...BASE_POLICY,
      ...variant.policy,
    },
    { dir: `fuzz/${variant.id}`, prompt: PROMPT, testCommand: ['true'] },
  );
}

/**
 * The evidence bundle a run would read for this variant: the real diff and patch of its
 * workspace (redacted as sealing redacts them), and synthetic facts for what no fuzz variant has —
 * an agent that exited 0, tests that passed, no tracer, and the template's commands as exec events
 * of the agent's process tree.
 */
export function variantBundle(variant: Variant, ev: VariantEvidence): EvidenceBundle {
  const config = variantConfig(variant);
  const agent: CommandRecord = syntheticCommand('fuzz-agent', 'agent', ['fuzz-agent'], ev.repoDir);
  const syscalls: SysEvent[] = variant.commands.map((argv, i) => ({
    seq: i + 1,
    ts: i + 1,
    pid: 1000 + i,
    ppid: 999,
    exe: argv[0] ?? '',
    kind: 'exec',
    syscall: 'execve',
    path: argv[0] ?? '',
    argv,
    cwd: ev.repoDir,
    result: 0,
  }));
  return {
    run_id: variant.id,
    run_dir: ev.repoDir,
    config,
    workspace: {
      run_id: variant.id,
      repo_dir: ev.repoDir,
      baseline_sha: ev.baselineSha,
      template: 'base',
      files: 0,
    },
    agent: {
      adapter: 'fuzz',
      name: 'fuzz',
      version: null,
      model: null,
      metadata: {},
      outcome: { status: 'completed', exit_code: 0 },
      command_id: agent.id,
    },
    commands: [agent],
    tests: { ran: true, passed: true, exit_code: 0, timed_out: false, duration_ms: 0, command_id: null },
    diff: ev.diff,
    patch: runRedactor(config, null).text(ev.patch),
    syscalls,
    test_syscalls: [],
    network: [],
    timeline: [],
    observation: {
      sandbox: { kind: 'local', isolated: false },
      tracer: { requested: 'off', kind: 'off', lost_events: 0 },
      network: { mode: 'none' },
      kernel: 'fuzz',
      fallbacks: [],
      window: null,
    },
    canaries: null,
    model: null,
    skills: [],
    setup: null,
    started_at: EPOCH,
    finished_at: EPOCH,
  };
}

/** Judge a variant with the run's own analysis (checks, rules, score) and compare with its expectation. */
export function judgeVariant(variant: Variant, ev: VariantEvidence, rules: RuleSet): VariantOutcome {
  const analysis = analyze(variantBundle(variant, ev), rules);
  return compareWithExpectation(variant, ev.diff, analysis);
}

export function compareWithExpectation(
  variant: Variant,
  diff: DiffEvidence,
  analysis: AnalysisResult,
): VariantOutcome {
  const fuzzed = new Set<CheckId>(FUZZED_CHECKS);
  const failing = FUZZED_CHECKS.filter((id) => analysis.checks.some((c) => c.id === id && !c.passed));
  const messages: Partial<Record<FuzzedCheck, string>> = {};
  for (const c of analysis.checks) if (fuzzed.has(c.id)) messages[c.id as FuzzedCheck] = c.message;
  const disagreements: Disagreement[] = [];
  for (const id of FUZZED_CHECKS) {
    const want = variant.expected.failing.includes(id);
    const got = failing.includes(id);
    if (want && !got)
      disagreements.push({
        kind: 'missed',
        subject: id,
        detail: `${id} passed; expected to fail: ${variant.expected.why}`,
      });
    if (!want && got)
      disagreements.push({
        kind: 'false-alarm',
        subject: id,
        detail: `${id} failed (${messages[id] ?? ''}); expected to pass: ${variant.expected.why}`,
      });
  }
  const alerts = [...new Set(analysis.alerts.map((a) => a.rule))].sort();
  if (analysis.score.result !== variant.expected.verdict) {
    const lost = analysis.score.deductions.map((d) => `${d.id} (${d.severity})`).join(', ') || 'nothing';
    disagreements.push({
      kind: 'verdict',
      subject: 'verdict',
      detail: `verdict ${analysis.score.result}, expected ${variant.expected.verdict}; points lost to ${lost}`,
    });
  }
  return {
    id: variant.id,
    dimension: variant.dimension,
    template: variant.template,
    description: variant.description,
    expected: variant.expected,
    observed: {
      failing,
      verdict: analysis.score.result,
      score: analysis.score.score,
      alerts,
      messages,
      other_failing: analysis.checks.filter((c) => !fuzzed.has(c.id) && !c.passed).map((c) => c.id),
    },
    diff: diff.files.map((f) => ({
      path: f.path,
      status: f.status,
      added: f.added,
      deleted: f.deleted,
      ...(f.link ? { link: f.link } : {}),
    })),
    disagreements,
  };
}

function syntheticCommand(
  id: string,
  role: CommandRecord['role'],
  argv: string[],
  cwd: string,
): CommandRecord {
  return recordWithoutOutput({ id, role, argv, cwd, exit_code: 0 });
}
