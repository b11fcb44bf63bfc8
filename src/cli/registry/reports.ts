import type { CommandSpec } from './types.js';

/** A run folder or a run id: commands that read one run take either (a run id through history). */
async function runFolder(arg: string, flags: { outputDir?: string }): Promise<string> {
  const { runFolderArg } = await import('../run-folder-arg.js');
  return runFolderArg(arg, flags);
}

const REPORTS_FIX =
  "use 'reports list', 'reports show RUN_ID', 'reports batches', 'reports export', 'reports trends', 'reports incidents' or 'reports site OUT_DIR'.";

export const REPORT_COMMANDS: readonly CommandSpec[] = [
  {
    name: 'reports',
    usage: 'reports <action> [runIdOrDir]',
    group: 'Reports',
    summary:
      'list recorded runs (list), print one report (show RUN_ID), list batches (batches), export runs (export), pass rate and score over time (trends), alerts by rule (incidents), a static site (site OUT_DIR)',
    description:
      'Reads the history of runs (history.db under --output-dir). The filters (--agent, --task, --result, --check, --rule, --since, --until, --batch, --benchmark) apply to every action that lists runs; list shows the newest 20 unless --limit, the other actions every matching run.',
    examples: [
      'agentguard reports list --result FAIL --limit 50',
      'agentguard reports show 20261205-101500-ab12cd',
      'agentguard reports export --format csv --since 2026-12-01',
      'agentguard reports site ./site',
    ],
    actions: {
      list: 'the newest recorded runs, one line each',
      show: 'print the report of one run (RUN_ID)',
      batches: 'the recorded batches',
      export: 'every matching run as JSON or CSV',
      trends: 'pass rate and score per UTC day or per benchmark version',
      incidents: 'guard alerts grouped by rule',
      site: 'a static HTML site of the history (OUT_DIR)',
    },
    actionFix: REPORTS_FIX,
    flags: [
      {
        flag: '--limit <n>',
        help: 'the newest n runs (default: 20; export, trends, incidents, site: all)',
        whole: { min: 1 },
      },
      { flag: '--batch <id>', help: 'only the runs of this batch' },
      { flag: '--agent <name>', help: 'only runs of this agent' },
      { flag: '--task <name>', help: 'only runs of this task' },
      { flag: '--benchmark <id>', help: 'only runs of this benchmark id' },
      {
        flag: '--result <PASS|FAIL|ERROR>',
        help: 'only runs with this result',
        choices: ['PASS', 'FAIL', 'ERROR'],
      },
      { flag: '--check <id>', help: 'only runs where this check failed' },
      { flag: '--rule <id>', help: 'only runs with an alert of this rule' },
      { flag: '--since <date>', help: 'only runs started at or after this date or time' },
      { flag: '--until <date>', help: 'only runs started before this date or time' },
      { flag: '--format <json|csv>', help: 'export: the format (default: json)', choices: ['json', 'csv'] },
      {
        flag: '--by <day|benchmark>',
        help: 'trends: per UTC day (default) or per benchmark version',
        choices: ['day', 'benchmark'],
      },
      { flag: '--json', help: 'machine-readable output' },
    ],
    // Each action loads its own module: `reports list` is what people run most, and waits least.
    load:
      async () =>
      async (io, [action, runId], flags) => {
        if (action === 'trends' || action === 'incidents') {
          const m = await import('../commands/reports-aggregates.js');
          return action === 'trends' ? m.reportsTrends(io, flags) : m.reportsIncidents(io, flags);
        }
        if (action === 'site')
          return (await import('../commands/reports-site.js')).reportsSite(io, runId, flags);
        const m = await import('../commands/reports.js');
        if (action === 'list') return m.reportsList(io, flags);
        if (action === 'export') return m.reportsExport(io, flags);
        if (action === 'batches') return m.reportsBatches(io, flags);
        if (runId !== undefined) return m.reportsShow(io, runId, flags);
        const { notACommand } = await import('../usage-error.js');
        throw notACommand({
          command: 'reports',
          typed: 'show',
          known: [],
          fix: REPORTS_FIX,
        });
      },
  },
  {
    name: 'compare',
    usage: 'compare <runDir> [...more]',
    group: 'Reports',
    summary: 'compare runs by their star graphs: similarity, outlier, what differs',
    description:
      'Compares two or more runs (folders or run ids) by what they did: the star graph of each run (processes, files, hosts) and their pairwise similarity, the outlier among them, and what differs. Use it on the trials of one task to see whether the agent behaves the same way each time.',
    examples: [
      'agentguard compare 20261205-101500-ab12cd 20261205-101530-ef34ab',
      'agentguard compare .agentguard/runs/a .agentguard/runs/b .agentguard/runs/c --html compare.html',
    ],
    flags: [
      { flag: '--json', help: 'machine-readable output (includes homogeneous_wins_share across tasks)' },
      {
        flag: '--html <file>',
        help: 'also write the comparison as a self-contained HTML page (heat map, graphs side by side)',
      },
    ],
    load: async () => {
      const { compareCommand } = await import('../commands/compare.js');
      return async (io, runs, flags) =>
        compareCommand(io, await Promise.all(runs.map((run) => runFolder(run, flags))), flags);
    },
  },
  {
    name: 'analyze',
    usage: 'analyze <runDir>',
    group: 'Reports',
    summary: 're-derive checks, score and reports from a run directory, running nothing',
    description:
      "Judges a run again from the evidence on disk, running nothing: the checks, the security rules, the score and every report are derived anew. With --config, under another config's policy: what would this run have scored with stricter rules?",
    examples: [
      'agentguard analyze 20261205-101500-ab12cd',
      'agentguard analyze .agentguard/runs/20261205-101500-ab12cd --config strict.yaml --json',
    ],
    flags: [
      { flag: '--config <file>', help: 'judge the stored evidence under the policy of another config' },
      { flag: '--json', help: 'print exactly report.json on stdout' },
    ],
    load: async () => {
      const { analyzeCommand } = await import('../commands/analyze.js');
      return async (io, [run], flags) => analyzeCommand(io, await runFolder(run as string, flags), flags);
    },
  },
  {
    name: 'trace',
    usage: 'trace <action> <runDir>',
    group: 'Reports',
    summary:
      "a run's provenance: verify (manifest and hash chain), show, replayability, replay (re-judge the verified evidence, running nothing)",
    description:
      "Works on one run's provenance: its manifest of every evidence file's hash, and the hash chain over its trace. verify proves the evidence is the one recorded; replay re-judges verified evidence, so a verdict can be checked without trusting the machine that ran it.",
    examples: [
      'agentguard trace verify 20261205-101500-ab12cd',
      'agentguard trace replay .agentguard/runs/20261205-101500-ab12cd --config strict.yaml --json',
    ],
    actions: {
      verify: 'check the manifest and the hash chain',
      show: 'print the provenance record',
      replayability: 'say whether the run can be replayed, and why not',
      replay: 're-judge the verified evidence, running nothing',
    },
    actionFix: "use 'trace verify|show|replayability|replay RUN_DIR'.",
    flags: [
      {
        flag: '--config <file>',
        help: 'replay: judge the verified evidence under the policy of another config',
      },
      { flag: '--json', help: 'machine-readable output' },
    ],
    load: async () => {
      const trace = await import('../commands/trace.js');
      const byAction = {
        verify: trace.traceVerify,
        show: trace.traceShow,
        replayability: trace.traceReplayability,
        replay: trace.traceReplay,
      };
      return async (io, [action, run], flags) =>
        byAction[action as keyof typeof byAction](io, await runFolder(run as string, flags), flags);
    },
  },
  {
    name: 'view',
    usage: 'view',
    group: 'Reports',
    summary:
      'a local web viewer on 127.0.0.1: runs and batches from history, each report, live pages of runs in progress',
    description:
      'Serves the history under --output-dir on 127.0.0.1 only: the runs and batches, each report, and live pages of runs in progress. Runs until Ctrl-C. To see it from another machine, forward the port over SSH.',
    examples: ['agentguard view', 'agentguard view --port 8080 --output-dir /srv/agentguard'],
    flags: [
      {
        flag: '--port <port>',
        help: 'the port to listen on (default: any free port)',
        whole: { min: 0, max: 65535 },
      },
      {
        flag: '--host <host>',
        help: 'only 127.0.0.1 is accepted: the viewer never listens beyond this machine',
      },
    ],
    load: async () => {
      const { viewCommand } = await import('../commands/view.js');
      return (io, _args, flags) => viewCommand(io, flags);
    },
  },
];
