import { appendFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { readCiPolicy } from '../../ci/ci-policy.js';
import { githubAnnotations, githubSummary } from '../../ci/github.js';
import { OUTPUT_FOLDER } from '../../ci/materialize.js';
import { checkCiOutputFolder } from '../../ci/output-folder.js';
import { type CiRange, repositoryRoot, resolveRange } from '../../ci/resolve-range.js';
import { type CiResult, describeRange, runCi } from '../../ci/run-ci.js';
import { ConfigError, SetupError } from '../../errors.js';
import { TRACER_CHOICES, type TracerRequest } from '../../evidence/kinds.js';
import { beginRunSession } from '../../pipeline/run-session.js';
import { renderJson } from '../../reports/json.js';
import { type CliIO, type GlobalOptions, runContext } from '../io.js';
import { checkOutputDir } from '../output-dir.js';
import { summarise } from './run.js';

export type CiCommandOptions = GlobalOptions & {
  config?: string;
  policy?: string;
  allowBelowFloor?: boolean;
  repo?: string;
  base?: string;
  head?: string;
  runTests?: boolean;
  /** cac's negation of --no-tests: false when it was given. */
  tests?: boolean;
  tracer?: string;
  githubSummary?: boolean;
  allowFailures?: boolean;
  /** One or more --agent-log FILE (cac gives a string, or an array when repeated). */
  agentLog?: string | string[] | boolean;
  json?: boolean;
};

/** `agentguard ci`: judge a checkout's changes; 0 PASS, 1 FAIL (0 with --allow-failures), 2 setup/config. */
export async function ciCommand(io: CliIO, opts: CiCommandOptions): Promise<number> {
  if (opts.runTests && opts.tests === false)
    throw new ConfigError('--run-tests and --no-tests contradict each other. Fix: pass one of them.');
  const tracer = opts.tracer;
  if (tracer !== undefined && !(TRACER_CHOICES as readonly string[]).includes(tracer))
    throw new ConfigError(`--tracer '${tracer}' is not known. Fix: use one of ${TRACER_CHOICES.join(', ')}.`);
  if (opts.head !== undefined && opts.base === undefined)
    throw new ConfigError(
      '--head needs --base. Fix: pass --base REF too, or neither to judge the working tree.',
    );
  if (opts.base === undefined && opts.policy === undefined) refuseHeadPolicyInPullRequest(process.env);
  const root = repositoryRoot(opts.repo ?? '.');
  const agentLogFiles = agentLogFlags(opts.agentLog);
  const range = resolveRange(root, opts.base, opts.head);
  const summaryFile = opts.githubSummary ? stepSummaryFile() : null;
  const outputDir = path.resolve(opts.outputDir ?? path.join(root, OUTPUT_FOLDER));
  // --output-dir, when given, was checked before this module loaded (the registry's writesRuns).
  if (opts.outputDir === undefined) checkOutputDir(outputDir, false);
  checkCiOutputFolder(root, outputDir);
  const policy = readCiPolicy(range, {
    ...(opts.config === undefined ? {} : { config: opts.config }),
    ...(opts.policy === undefined ? {} : { policy: opts.policy }),
  });
  try {
    const ctx = { ...runContext(io, { ...opts, quiet: opts.quiet || opts.json }), outputDir };
    if (!opts.quiet) io.err(`agentguard: note: ${policyNote(range, policy.label, policy.source.kind)}`);
    if (range.mode === 'commits' && range.dirty)
      io.err(
        `agentguard: note: the checkout has uncommitted changes; --base judges only the commits ${range.base_ref}...${range.head_ref}, not them.`,
      );
    const session = await beginRunSession(ctx, io.err);
    const result = await runCi(session, {
      cfg: policy.cfg,
      range,
      runTests: opts.tests !== false,
      agentLogGlobs: policy.agent_logs,
      agentLogFiles,
      policyLabel: policy.label,
      guarded: policy.guarded,
      ...(opts.allowBelowFloor
        ? {}
        : {
            floor: {
              input: changesJudged(range),
              allowFlag: ALLOW_BELOW_FLOOR,
              root: policy.cfg.config_dir,
            },
          }),
      operatorPolicy: policy.source.kind === 'file',
      ...(tracer ? { tracer: tracer as TracerRequest } : {}),
    });
    if (result.outputMoved)
      io.err(
        `agentguard: warning: the output folder ${outputDir} was moved or replaced during the run; the run folder went into the folder agentguard opened at the start (wherever it is now), never through what is at that path.`,
      );
    if (result.policyEdits.length > 0)
      io.err(
        `agentguard: the changes edit the CI policy (${result.policyEdits.join(', ')}); they were judged by ${policy.label}, and forbidden-paths fails on the edit.`,
      );
    return report(io, opts, range, result, summaryFile);
  } finally {
    policy.dispose();
  }
}

/**
 * A pull-request job (as its CI says, in the operator's environment) judged without --base would take
 * the policy from HEAD, which there is the pull request's own commit (or its merge): the changes would
 * choose their own judgement, whatever they wrote into `.agentguard.yaml` or its rule files.
 */
export function refuseHeadPolicyInPullRequest(env: NodeJS.ProcessEnv): void {
  const says =
    env.GITHUB_EVENT_NAME === 'pull_request' || env.GITHUB_EVENT_NAME === 'pull_request_target'
      ? `GITHUB_EVENT_NAME=${env.GITHUB_EVENT_NAME}`
      : env.GITHUB_BASE_REF
        ? `GITHUB_BASE_REF=${env.GITHUB_BASE_REF}`
        : env.CI_MERGE_REQUEST_IID
          ? `CI_MERGE_REQUEST_IID=${env.CI_MERGE_REQUEST_IID}`
          : null;
  if (says === null) return;
  throw new ConfigError(
    `this is a pull-request job (${says}), and without --base the policy would be HEAD's: the pull request's own commit, which may rewrite how it is judged. ` +
      "Fix: pass --base with the pull request's base commit (the action passes it), or --policy FILE outside the checkout.",
  );
}

/** The operator's flag that lets the changes' tests run below the isolation floor. */
const ALLOW_BELOW_FLOOR = '--allow-below-floor';

function changesJudged(range: CiRange): string {
  return range.mode === 'commits'
    ? `the changes ${range.base_ref}...${range.head_ref}`
    : "the working tree's changes";
}

/** Which policy judges, and why that one: said on every run, since it is the one the changes cannot choose. */
function policyNote(range: CiRange, label: string, kind: 'commit' | 'file'): string {
  if (kind === 'file') return `the policy is ${label} (--policy), not the checkout's own`;
  return range.mode === 'commits'
    ? `the policy is ${label}, the base's, not the one in the changes`
    : `judging the working tree, so the policy is ${label}, the commit it is compared with, not the working tree's`;
}

function report(
  io: CliIO,
  opts: CiCommandOptions,
  range: CiRange,
  result: CiResult,
  summaryFile: string | null,
): number {
  const { report } = result;
  const failing = report.result !== 'PASS';
  if (opts.json) io.out(renderJson(report));
  else io.out(summarise(report, result.reportMd));
  if (opts.githubSummary) {
    const annotations = githubAnnotations(report);
    for (const line of annotations) (opts.json ? io.err : io.out)(line);
    if (summaryFile)
      appendFileSync(
        summaryFile,
        githubSummary(report, describeRange(range), result.reportMd, workflowRunUrl()),
      );
  }
  // An interrupt is not a verdict --allow-failures can waive: the job was stopped (exit 128+N).
  if (failing && opts.allowFailures && !result.stopped) {
    io.err(`agentguard: ${report.result}, but --allow-failures was given: exit 0.`);
    return 0;
  }
  return result.exitCode;
}

/** The --agent-log files, each checked to be a readable file before any work is done. */
function agentLogFlags(value: CiCommandOptions['agentLog']): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => {
    if (typeof v !== 'string' || v === '')
      throw new ConfigError('--agent-log needs a file. Fix: pass --agent-log PATH (a JSON-lines agent log).');
    const file = path.resolve(v);
    let isFile = false;
    try {
      isFile = statSync(file).isFile();
    } catch {
      // said below
    }
    if (!isFile)
      throw new ConfigError(
        `--agent-log ${v}: no such file. Fix: pass the path of the agent's command log or transcript (JSON lines).`,
      );
    return file;
  });
}

/** The link to this workflow run, from the variables GitHub Actions sets (undefined elsewhere). */
function workflowRunUrl(): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: id } = process.env;
  return server && repo && id ? `${server}/${repo}/actions/runs/${id}` : undefined;
}

/** The file GitHub Actions collects the job summary from; checked before any work is done. */
function stepSummaryFile(): string {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file)
    throw new SetupError(
      '--github-summary needs the GITHUB_STEP_SUMMARY environment variable, which GitHub Actions sets. ' +
        'Fix: run it in a GitHub Actions step, or set GITHUB_STEP_SUMMARY to a file.',
    );
  return file;
}
