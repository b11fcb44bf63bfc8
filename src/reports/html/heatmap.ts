import type { Matrix } from '../../analysis/reliability/similarity.js';
import { esc, ratio } from './escape.js';

/** Beyond this many runs the matrices are left to `compare --json`: the page stays readable and bounded. */
export const HEATMAP_RUN_LIMIT = 60;

/** `label` heads a column ("#3"); `row` heads a row ("#3 · task"); `title` is the tooltip. */
export type RunHeader = { label: string; row: string; title: string };

/** A sequential scale from near-white (0, nothing shared) to dark blue (1, the same behaviour). */
export function heatColour(value: number): string {
  const t = Math.min(1, Math.max(0, value));
  const from = [247, 251, 255];
  const to = [8, 48, 107];
  const rgb = from.map((f, i) => Math.round(f + ((to[i] as number) - f) * t));
  return `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

const textColour = (value: number) => (value > 0.55 ? '#ffffff' : '#1f2933');

/** One similarity matrix as a table of coloured cells, each showing its value. */
export function heatMapTable(caption: string, matrix: Matrix, runs: readonly RunHeader[]): string {
  const head = `<tr><th></th>${runs.map((r) => `<th class="num" title="${esc(r.title)}">${esc(r.label)}</th>`).join('')}</tr>`;
  const rows = runs.map((run, i) => {
    const cells = runs.map((other, j) => {
      const value = matrix[i]?.[j] ?? null;
      const title = esc(
        `${run.title} vs ${other.title}: ${value === null ? 'nothing to compare' : ratio(value)}`,
      );
      if (value === null) return `<td class="cell none" title="${title}">–</td>`;
      return `<td class="cell" style="background:${heatColour(value)};color:${textColour(value)}" title="${title}">${ratio(value)}</td>`;
    });
    return `<tr><th title="${esc(run.title)}">${esc(run.row)}</th>${cells.join('')}</tr>`;
  });
  return `<table class="heat"><caption>${esc(caption)}</caption><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The colour scale's key. */
export function heatLegend(): string {
  const steps = [0, 0.2, 0.4, 0.6, 0.8, 1];
  const swatches = steps.map(
    (v) =>
      `<span class="swatch" style="background:${heatColour(v)};color:${textColour(v)}">${v.toFixed(1)}</span>`,
  );
  return `<div class="legend">Similarity: ${swatches.join('')} <span class="swatch none">–</span> nothing to compare (neither run had a resource of that type)</div>`;
}
