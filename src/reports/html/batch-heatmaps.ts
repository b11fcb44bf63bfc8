import type { BatchSummary, Group } from '../batch-types.js';
import { esc } from './escape.js';
import { heatLegend, heatMapTable, type RunHeader } from './heatmap.js';

/** The part of a run id after its last `-` (its random suffix): short enough for a column head. */
const shortId = (runId: string) => runId.slice(runId.lastIndexOf('-') + 1) || runId;

/**
 * One small heat map per (agent, task) cell with two or more runs: their pairwise similarity,
 * labelled by run id (rows in full, columns by the id's suffix, the full id and trial in the
 * tooltip). Cells whose matrix was left out (too many runs) or could not be computed say why.
 */
export function batchHeatMaps(s: BatchSummary): string {
  const trialOf = new Map(s.rows.flatMap((r) => (r.run_id ? [[r.run_id, r.trial] as const] : [])));
  const cells = s.groups.filter(
    (g): g is Group & { similarity: NonNullable<Group['similarity']> } =>
      g.task !== null && g.similarity !== null,
  );
  if (cells.length === 0) return '';
  const maps = cells.map((g) => {
    const sim = g.similarity;
    const caption = `${g.agent} · ${g.task}: mean ${sim.mean_similarity.toFixed(2)}${sim.outlier_run_id ? `, outlier ${sim.outlier_run_id}` : ''}`;
    const attrs = `class="cell-heat" data-agent="${esc(g.agent)}" data-task="${esc(g.task ?? '')}"`;
    if (sim.matrix.length === 0)
      return `<div ${attrs}><p>${esc(caption)}: ${esc(sim.note ?? `${sim.runs} runs, too many for a heat map; see compare --json`)}</p></div>`;
    const headers: RunHeader[] = sim.run_ids.map((id) => ({
      label: shortId(id),
      row: id,
      title: `${id}${trialOf.has(id) ? ` · trial ${trialOf.get(id)}` : ''}`,
    }));
    return `<div ${attrs}>${heatMapTable(sim.note ? `${caption} (${sim.note})` : caption, sim.matrix, headers)}</div>`;
  });
  return [
    "<h2>Similarity heat map of each cell's runs</h2>",
    '<p>How alike the runs of one agent on one task behaved (star-graph similarity of the commands, files and hosts they touched, as in <code>agentguard compare</code>): 1 is the same behaviour, 0 nothing shared.</p>',
    heatLegend(),
    `<div class="heatmaps">${maps.join('')}</div>`,
  ].join('\n');
}
