import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { analyze } from '../analysis/analyze.js';
import { POLICY_KEYS } from '../analysis/checks/index.js';
import { runGraph } from '../analysis/run-graph.js';
import type { AnalysisResult } from '../analysis/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { writeText } from '../evidence/write.js';
import { buildRunReport } from '../reports/build.js';
import { REPORTERS, reportPath } from '../reports/reporters.js';
import type { RunReport } from '../reports/types.js';
import { reportView } from '../reports/view/report-view.js';
import { agentguardVersion } from '../version.js';
import { markPhase } from './phase-marks.js';
import { readBundle } from './read-bundle.js';
import { loadRunRules, rulesOfRun } from './rules.js';

export type AnalysedRun = {
  report: RunReport;
  analysis: AnalysisResult;
  reportJson: string;
  reportMd: string;
};

/**
 * The analyse half of a run: evidence on disk in, reports on disk out. It spawns nothing and
 * touches no network, so `agentguard analyze` gives the same verdict the run gave (or, with a
 * new policy, the verdict that policy would have given, written under `analyses/`).
 */
export function analyseRun(runDir: string, policy?: ResolvedConfig, shownAs?: string): AnalysedRun {
  const read = readBundle(runDir);
  // Made elsewhere and moved to `shownAs` once sealed (ci's private folder): the report names where it will be.
  const bundle = shownAs === undefined ? read : { ...read, run_dir: shownAs };
  // Under another policy the reports go beside the originals, which keep the verdict the run earned.
  let outDir = runDir;
  if (policy) {
    bundle.config = withPolicy(bundle.config, policy);
    const tag = createHash('sha256').update(JSON.stringify(bundle.config)).digest('hex').slice(0, 12);
    outDir = path.join(runDir, 'analyses', `${path.basename(policy.config_path, '.yaml')}-${tag}`);
  }
  const rules = policy ? loadRunRules(bundle.config).ruleset : rulesOfRun(runDir, bundle.config);
  const analysis = analyze(bundle, rules);
  markPhase('finish:analyse');
  const report = buildRunReport(bundle, analysis, { artifacts: listEvidence(runDir) });
  const input = { report, view: reportView(report), graph: runGraph(bundle), version: agentguardVersion() };
  for (const reporter of REPORTERS) writeText(path.join(outDir, reporter.file), reporter.render(input));
  markPhase('finish:reports');
  return {
    report,
    analysis,
    reportJson: reportPath(outDir, 'json'),
    reportMd: reportPath(outDir, 'markdown'),
  };
}

/**
 * Judge an old run under a new policy, keeping the task and agent identity it actually had. The
 * agent's own state folders (which the run added from its profile) are facts about the agent, not
 * policy: they stay allowed under the new security settings.
 */
export function withPolicy(snapshot: ResolvedConfig, policy: ResolvedConfig): ResolvedConfig {
  const merged: Record<string, unknown> = { ...snapshot };
  for (const key of POLICY_KEYS) merged[key] = policy[key];
  const stateDirs = [...new Set([...policy.security.state_dirs, ...snapshot.security.state_dirs])];
  merged.security = { ...policy.security, state_dirs: stateDirs };
  return merged as ResolvedConfig;
}

function listEvidence(runDir: string): string[] {
  try {
    return readdirSync(path.join(runDir, 'evidence'))
      .filter((f) => !f.endsWith('.tmp'))
      .sort()
      .map((f) => `evidence/${f}`);
  } catch {
    return [];
  }
}
