import type { EvidenceBundle } from '../analysis/evidence-bundle.js';
import { buildStarGraph } from './reliability/star-graph.js';
import type { StarGraph } from './reliability/types.js';

/** The star graph of one run, from its evidence alone (pure). */
export function runGraph(bundle: EvidenceBundle): StarGraph {
  return buildStarGraph({
    runId: bundle.run_id,
    syscalls: bundle.syscalls,
    network: bundle.network,
    workspaceDir: bundle.workspace.repo_dir,
    runDir: bundle.run_dir,
    ...(bundle.canaries
      ? { agentHome: bundle.canaries.home, canaryPaths: bundle.canaries.canaries.map((c) => c.path) }
      : {}),
  });
}
