import type { HomogeneousMixedResult } from '../../analysis/reliability/homogeneous-mixed.js';
import type { Outlier, OutlierResource } from '../../analysis/reliability/outlier.js';
import type { SimilarityMatrix } from '../../analysis/reliability/similarity.js';
import type { ResourceType, StarGraph } from '../../analysis/reliability/types.js';
import { multiplesSection } from './compare-graphs.js';
import { esc, ratio, truncate } from './escape.js';
import { HEATMAP_RUN_LIMIT, heatLegend, heatMapTable, type RunHeader } from './heatmap.js';
import { htmlPage, htmlTable } from './page.js';

/**
 * What the comparison page needs: the shape of `compareRuns`' result (src/batch/compare.ts), named
 * here so that reports do not import the batch layer. A `Comparison` is one of these.
 */
export type CompareInput = {
  runs: readonly {
    run_id: string;
    task: string;
    agent: string;
    result: string;
    tracer: string;
    syscall_evidence: boolean;
  }[];
  similarity: SimilarityMatrix;
  outlier: Outlier;
  homogeneous_vs_mixed: HomogeneousMixedResult | null;
  notes: readonly string[];
};

const TYPE_TITLE: Record<ResourceType, string> = { command: 'commands', file: 'files', host: 'hosts' };

/**
 * The comparison page: similarity heat maps (overall and per resource type), the outlier and what
 * makes it differ, the homogeneous-versus-mixed summary across tasks, and the runs' star graphs
 * side by side on one shared layout. `graphs` are the runs' graphs, matched by run id. Self-contained
 * and deterministic like the run page.
 */
export function renderCompareHtml(comparison: CompareInput, graphs: readonly StarGraph[]): string {
  const { runs } = comparison;
  const headers: RunHeader[] = runs.map((r, i) => ({
    label: `#${i + 1}`,
    row: `#${i + 1} · ${truncate(r.task, 24)}`,
    title: `run ${r.run_id} (${r.task})`,
  }));
  const outlierIndex = comparison.outlier.found ? comparison.outlier.index : -1;
  const body = [
    `<h1>Comparison of ${runs.length} runs</h1>`,
    `<p class="muted">Weighted-Jaccard similarity of the runs' star graphs (${esc(comparison.similarity.view)} view): 1 is the same resources in the same proportions, 0 nothing shared.</p>`,
    notesList(comparison.notes),
    runsTable(comparison),
    heatMaps(comparison, headers),
    outlierSection(comparison),
    mixedSection(comparison.homogeneous_vs_mixed),
    multiplesSection(
      runs.map((r, i) => ({
        label: `#${i + 1}`,
        title: `run ${r.run_id} (${r.task}, ${r.result})`,
        graph: graphs.find((g) => g.run_id === r.run_id) ?? graphs[i],
        outlier: i === outlierIndex,
      })),
    ),
  ].join('\n');
  return htmlPage(`Comparison of ${runs.length} runs — agentguard`, body);
}

function notesList(notes: readonly string[]): string {
  if (notes.length === 0) return '';
  return `<div class="warning" id="notes">${notes.map((n) => `<div>Note: ${esc(n)}</div>`).join('')}</div>`;
}

function runsTable(comparison: CompareInput): string {
  const means = comparison.outlier.found ? comparison.outlier.means : null;
  const rows = comparison.runs.map((r, i) => [
    `#${i + 1}`,
    `<code>${esc(r.run_id)}</code>`,
    esc(r.task),
    esc(r.agent),
    r.result === 'PASS'
      ? '<span class="sev-pass">PASS</span>'
      : `<span class="sev-error">${esc(r.result)}</span>`,
    `${esc(r.tracer)}${r.syscall_evidence ? '' : ' (no system-call evidence)'}`,
    means === null ? '–' : ratio(means[i]),
  ]);
  return [
    '<h2 id="runs">Runs</h2>',
    htmlTable(['', 'Run', 'Task', 'Agent', 'Result', 'Tracer', 'Mean similarity to the others'], rows, {
      numeric: [6],
    }),
  ].join('\n');
}

function heatMaps(comparison: CompareInput, headers: RunHeader[]): string {
  const title = '<h2 id="similarity">Similarity</h2>';
  if (headers.length > HEATMAP_RUN_LIMIT) {
    return `${title}\n<p>${headers.length} runs: the matrices are too large for a page; <code>agentguard compare --json</code> prints them.</p>`;
  }
  const { similarity } = comparison;
  const maps = [
    heatMapTable('overall (mean over types)', similarity.overall, headers),
    ...similarity.types.map((type) => heatMapTable(TYPE_TITLE[type], similarity.by_type[type], headers)),
  ];
  return [title, heatLegend(), `<div class="heatmaps">${maps.join('')}</div>`].join('\n');
}

function outlierSection(comparison: CompareInput): string {
  const o = comparison.outlier;
  const title = '<h2 id="outlier">Outlier</h2>';
  if (!o.found) return `${title}\n<p>No outlier: ${esc(o.reason)}.</p>`;
  const run = comparison.runs[o.index];
  return [
    title,
    `<p>Run <strong>#${o.index + 1}</strong> (<code>${esc(o.run_id)}</code>${run === undefined ? '' : `, ${esc(run.task)}`}) is least like the others: mean similarity ${ratio(o.mean_similarity)}.</p>`,
    resourceList('Only the outlier used', o.only_in_outlier, o.only_total, 'count'),
    resourceList(
      'Every other run used, the outlier did not',
      o.missing_from_outlier,
      o.missing_total,
      'others’ total',
    ),
  ].join('\n');
}

function resourceList(
  title: string,
  list: readonly OutlierResource[],
  total: number,
  countTitle: string,
): string {
  if (total === 0) return `<h3>${title}</h3>\n<p>Nothing.</p>`;
  const rows = list.map((r) => [r.type, `<code>${esc(r.name)}</code>`, String(r.count)]);
  const more = total > list.length ? `<p class="more">…and ${total - list.length} more.</p>` : '';
  return [
    `<h3>${title} (${total})</h3>`,
    htmlTable(['Type', 'Resource', countTitle], rows, { numeric: [2] }),
    more,
  ].join('\n');
}

function mixedSection(result: HomogeneousMixedResult | null): string {
  if (result === null) return '';
  const lines = [
    '<h2 id="mixed">Homogeneous vs mixed</h2>',
    `<p>A task's own runs were more alike than sets where one of them was swapped for another task's run in <strong>${result.wins} of ${result.comparisons}</strong> comparisons (share ${ratio(result.homogeneous_wins_share)}${result.ties > 0 ? `, ${result.ties} ties` : ''}).</p>`,
  ];
  if (result.tasks.length > 0) {
    const rows = result.tasks.map((t) => [
      esc(t.task),
      String(t.run_ids.length),
      ratio(t.homogeneous),
      ratio(t.mixed_mean),
      t.margin === null ? '–' : `${t.margin >= 0 ? '+' : ''}${t.margin.toFixed(2)}`,
      `${t.wins} / ${t.comparisons}`,
    ]);
    lines.push(
      htmlTable(['Task', 'Runs', 'Own runs', 'Mixed sets', 'Margin', 'Wins'], rows, {
        numeric: [1, 2, 3, 4, 5],
      }),
    );
  }
  for (const s of result.skipped)
    lines.push(`<p class="muted">${esc(s.task)}: left out (${esc(s.reason)}).</p>`);
  return lines.join('\n');
}
