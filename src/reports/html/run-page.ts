import type { StarGraph } from '../../analysis/reliability/types.js';
import type { Headline, ReportView } from '../view/types.js';
import { esc } from './escape.js';
import { htmlPage } from './page.js';
import { starGraphFigure } from './run-graph.js';
import { inlineHtml, sectionHtml } from './view-html.js';

/**
 * `report.html`: the run's report view as one self-contained page, with its star graph drawn as
 * inline SVG. It loads nothing (a strict Content-Security-Policy says so to the browser too), runs
 * no script, and escapes every value that came from the agent's world. Same input, same bytes.
 */
export function renderRunHtml(view: ReportView, graph: StarGraph): string {
  const { headline: h } = view;
  const figures = { 'star-graph': () => starGraphFigure(graph) };
  const body = [headline(h), nav(view), ...view.sections.map((s) => sectionHtml(s, figures))].join('\n');
  return htmlPage(`${h.result} · ${h.score}/100 · ${h.task} — agentguard`, body);
}

function headline(h: Headline): string {
  const lines = [
    `<h1><span class="badge ${h.passed ? 'pass' : 'fail'}" id="verdict">${h.result}</span> score ${h.score}/100 · ${esc(h.task)}</h1>`,
    `<ul class="facts">${[h.lead, ...h.facts].map((f) => `<li>${inlineHtml(f)}</li>`).join('')}</ul>`,
  ];
  if (h.warning !== null) {
    lines.push(
      `<div class="warning" id="isolation-warning"><strong>⚠ ${h.warning.title}:</strong> ${inlineHtml(h.warning.content)}</div>`,
    );
  }
  return lines.join('\n');
}

function nav(view: ReportView): string {
  const links = view.sections.flatMap((s) =>
    s.nav === undefined ? [] : [`<a href="#${s.id}">${s.nav}</a>`],
  );
  return `<nav>${links.join('')}</nav>`;
}
