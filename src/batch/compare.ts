import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseStarGraph } from '../analysis/reliability/graph-schema.js';
import {
  type HomogeneousMixedResult,
  homogeneousVsMixed,
} from '../analysis/reliability/homogeneous-mixed.js';
import { type ObligationResult, unrelatedActivity } from '../analysis/reliability/obligations.js';
import { findOutlier, type Outlier } from '../analysis/reliability/outlier.js';
import { type SimilarityMatrix, similarityMatrix } from '../analysis/reliability/similarity.js';
import type { StarGraph } from '../analysis/reliability/types.js';
import { runGraph } from '../analysis/run-graph.js';
import { InputError } from '../errors.js';
import { isMissing, READ_LIMITS, readEvidenceText, readJson } from '../evidence/read.js';
import { readBundle } from '../pipeline/read-bundle.js';
import { RunReportFileSchema } from '../reports/report-schema.js';
import { reportPath } from '../reports/reporters.js';

export type ComparedRun = {
  run_id: string;
  run_dir: string;
  task: string;
  /** The agent that made the run: its name, and version where known. */
  agent: string;
  result: string;
  tracer: string;
  /** False when the run has no system-call evidence: it is compared on what it has. */
  syscall_evidence: boolean;
};

export type Comparison = {
  runs: ComparedRun[];
  similarity: SimilarityMatrix;
  outlier: Outlier;
  tasks: string[];
  /** Present when the runs cover more than one task. */
  homogeneous_vs_mixed: HomogeneousMixedResult | null;
  homogeneous_wins_share: number | null;
  /** Per run: resources no other run of its task needed, and hosts its task does not allow. */
  unrelated_activity: (ObligationResult & { run_id: string })[];
  notes: string[];
};

/** A run's graph: graph.json when present and sound, else rebuilt from the evidence. */
function loadGraph(runDir: string): { run: ComparedRun; graph: StarGraph; allowedHosts: string[] } {
  const bundle = readBundle(runDir);
  let graph: StarGraph;
  const file = reportPath(bundle.run_dir, 'graph');
  if (existsSync(file)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readEvidenceText(file, { maxBytes: READ_LIMITS.json, within: bundle.run_dir }));
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(
        `${file} is not valid JSON. Fix: delete it; 'agentguard analyze ${runDir}' rebuilds it.`,
      );
    }
    const checked = parseStarGraph(parsed);
    if (!checked.ok) {
      throw new InputError(
        `${file}: ${checked.issues[0] ?? 'invalid graph'}. Fix: delete it; 'agentguard analyze ${runDir}' rebuilds it.`,
      );
    }
    graph = checked.value;
  } else {
    graph = runGraph(bundle);
  }
  // A run without report.json (never analysed) is compared without a verdict; a corrupt one is an error.
  const reportFile = reportPath(bundle.run_dir, 'json');
  const result = isMissing(reportFile, bundle.run_dir)
    ? 'unknown'
    : readJson(reportFile, `'agentguard analyze ${runDir}' rewrites it`, RunReportFileSchema, bundle.run_dir)
        .result;
  const network = bundle.config.network;
  return {
    graph,
    allowedHosts: [...network.allow, ...Object.keys(network.hosts)],
    run: {
      run_id: bundle.run_id,
      run_dir: bundle.run_dir,
      task: bundle.config.benchmark_id ?? bundle.config.name,
      agent: [bundle.agent.name, bundle.agent.version].filter((part) => part !== null).join(' '),
      result,
      tracer: bundle.observation.tracer.kind,
      syscall_evidence: bundle.observation.tracer.kind !== 'off',
    },
  };
}

/** Compare runs by their star graphs: pairwise similarity, the outlier, and (across tasks) homogeneous vs mixed. */
export function compareRuns(runDirs: string[]): Comparison {
  return compareRunsWithGraphs(runDirs).comparison;
}

/** The comparison and the graphs it was computed from (for pictures). */
export function compareRunsWithGraphs(runDirs: string[]): { comparison: Comparison; graphs: StarGraph[] } {
  if (runDirs.length < 2)
    throw new InputError('compare needs at least two run directories. Fix: pass two or more.');
  const loaded = runDirs.map((d) => loadGraph(path.resolve(d)));
  const graphs = loaded.map((l) => l.graph);
  const runs = loaded.map((l) => l.run);
  const similarity = similarityMatrix(graphs);
  const tasks = [...new Set(runs.map((r) => r.task))].sort();
  const notes: string[] = [];
  const untraced = runs.filter((r) => !r.syscall_evidence).map((r) => r.run_id);
  if (untraced.length > 0) {
    notes.push(
      `no system-call evidence (tracer off) for ${untraced.join(', ')}: compared on network records only`,
    );
  }
  if (tasks.length > 1) notes.push(`runs of ${tasks.length} different tasks: ${tasks.join(', ')}`);
  const mixed =
    tasks.length > 1
      ? homogeneousVsMixed(
          runs.map((r) => ({ run_id: r.run_id, task: r.task })),
          similarity.overall,
        )
      : null;
  const comparison: Comparison = {
    runs,
    similarity,
    outlier: findOutlier(graphs, similarity.overall),
    tasks,
    homogeneous_vs_mixed: mixed,
    homogeneous_wins_share: mixed?.homogeneous_wins_share ?? null,
    unrelated_activity: loaded.map(({ run, graph, allowedHosts }, i) => ({
      run_id: run.run_id,
      ...unrelatedActivity({
        graph,
        otherTrials: loaded.filter((o, j) => j !== i && o.run.task === run.task).map((o) => o.graph),
        allowedHosts,
      }),
    })),
    notes,
  };
  return { comparison, graphs };
}
