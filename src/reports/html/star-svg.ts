import type { ResourceType } from '../../analysis/reliability/types.js';
import { esc, num, truncate } from './escape.js';
import type { StarLayout } from './graph-layout.js';

/** How a node is drawn: `ghost` is a resource of the shared layout this run did not use. */
export type NodeState = 'normal' | 'differs' | 'ghost';

export type DrawnNode = {
  id: string;
  type: ResourceType;
  name: string;
  count: number;
  /** Tooltip text after the name: the actions and their counts. */
  detail: string;
  /** Every attempt failed (denied connection, missing file): the edge is dashed. */
  allFailed: boolean;
  canary: boolean;
  runtime: boolean;
  state: NodeState;
  label: boolean;
};

export type StarSvgOptions = {
  /** Accessible name of the picture (untrusted parts are escaped here). */
  title: string;
  rootLabel: string;
  /** The heaviest count in the picture (edge widths are relative to it). */
  maxCount: number;
  /** Label characters; longer names are cut and the tooltip has them whole. */
  labelChars?: number;
  className?: string;
};

export const TYPE_COLOUR: Record<ResourceType, string> = {
  command: '#2563eb',
  file: '#059669',
  host: '#d97706',
};
const CANARY = '#b3261e';
const DIFFERS = '#111827';

/** Edge width 1..6, logarithmic in the count so one busy resource does not drown the others. */
export function edgeWidth(count: number, maxCount: number): number {
  if (maxCount <= 1) return 1.5;
  return 1 + (5 * Math.log1p(Math.max(0, count))) / Math.log1p(maxCount);
}

/** A shape per type, so colour is not the only difference: square, circle, diamond. */
export function shape(type: ResourceType, x: number, y: number, r: number, attrs: string): string {
  switch (type) {
    case 'command':
      return `<rect x="${num(x - r)}" y="${num(y - r)}" width="${num(2 * r)}" height="${num(2 * r)}" ${attrs}/>`;
    case 'file':
      return `<circle cx="${num(x)}" cy="${num(y)}" r="${num(r)}" ${attrs}/>`;
    case 'host': {
      const d = r * 1.3;
      const points = [
        [x, y - d],
        [x + d, y],
        [x, y + d],
        [x - d, y],
      ];
      return `<polygon points="${points.map(([px, py]) => `${num(px as number)},${num(py as number)}`).join(' ')}" ${attrs}/>`;
    }
  }
}

/** Paths keep their end (the file name), commands and hosts their start. */
export function shortLabel(type: ResourceType, name: string, max: number): string {
  return truncate(name, max, type === 'file' ? 'end' : 'start');
}

/** The star graph as an inline SVG element. Deterministic: the same input gives the same text. */
export function renderStarSvg(
  layout: StarLayout,
  nodes: readonly DrawnNode[],
  options: StarSvgOptions,
): string {
  const { centre } = layout;
  const edges: string[] = [];
  const shapes: string[] = [];
  for (const node of nodes) {
    const placed = layout.nodes.get(node.id);
    if (placed === undefined) continue;
    const { x, y, angle } = placed;
    const ghost = node.state === 'ghost';
    if (!ghost) {
      const width = edgeWidth(node.count, options.maxCount);
      const dash = node.allFailed ? ' stroke-dasharray="5 4"' : '';
      const colour = node.allFailed ? '#c2410c' : '#9aa5b1';
      edges.push(
        `<line x1="${num(centre)}" y1="${num(centre)}" x2="${num(x)}" y2="${num(y)}" stroke="${colour}" stroke-width="${num(width)}" stroke-opacity="0.7"${dash}/>`,
      );
    }
    shapes.push(drawNode(node, x, y, angle, options));
  }
  const root = [
    `<circle cx="${num(centre)}" cy="${num(centre)}" r="16" fill="#374151" stroke="#fff" stroke-width="2"/>`,
    `<text x="${num(centre)}" y="${num(centre + 32)}" text-anchor="middle" font-size="12" font-weight="700" fill="#374151" stroke="#fff" stroke-width="3" paint-order="stroke">${esc(options.rootLabel, 40)}</text>`,
  ];
  const cls = options.className === undefined ? '' : ` class="${options.className}"`;
  return [
    `<svg${cls} viewBox="0 0 ${layout.size} ${layout.size}" width="${layout.size}" height="${layout.size}" role="img" font-family="system-ui, sans-serif">`,
    `<title>${esc(options.title)}</title>`,
    `<g class="edges">${edges.join('')}</g>`,
    `<g class="root"><title>${esc(options.rootLabel, 80)}: the run's root process</title>${root.join('')}</g>`,
    `<g class="nodes">${shapes.join('')}</g>`,
    '</svg>',
  ].join('\n');
}

function drawNode(node: DrawnNode, x: number, y: number, angle: number, options: StarSvgOptions): string {
  const r = 4.5 + 3.5 * Math.min(1, Math.log1p(node.count) / Math.log1p(Math.max(2, options.maxCount)));
  const colour = TYPE_COLOUR[node.type];
  let attrs: string;
  if (node.state === 'ghost')
    attrs = `fill="none" stroke="${colour}" stroke-opacity="0.45" stroke-dasharray="2 2"`;
  else if (node.runtime)
    attrs = `fill="${colour}" fill-opacity="0.35" stroke="${colour}" stroke-dasharray="2 1"`;
  else attrs = `fill="${colour}" stroke="#fff" stroke-width="1"`;
  const parts = [`<title>${esc(`${node.type} · ${node.name}`)}\n${esc(node.detail)}</title>`];
  if (node.canary && node.state !== 'ghost')
    parts.push(shape(node.type, x, y, r + 4, `fill="none" stroke="${CANARY}" stroke-width="2.5"`));
  if (node.state === 'differs')
    parts.push(shape(node.type, x, y, r + 3, `fill="none" stroke="${DIFFERS}" stroke-width="2"`));
  parts.push(shape(node.type, x, y, r, attrs));
  if (node.label) parts.push(label(node, x, y, angle, r, options.labelChars ?? 32));
  const classes = [
    'node',
    `t-${node.type}`,
    node.state,
    ...(node.canary ? ['canary'] : []),
    ...(node.runtime ? ['runtime'] : []),
  ];
  return `<g class="${classes.join(' ')}">${parts.join('')}</g>`;
}

/** A radial label: along the ray from the centre, flipped on the left half so it reads left to right. */
function label(node: DrawnNode, x: number, y: number, angle: number, r: number, max: number): string {
  const left = angle > 90 && angle < 270;
  const rad = (angle * Math.PI) / 180;
  const offset = r + 6;
  const lx = x + offset * Math.cos(rad);
  const ly = y + offset * Math.sin(rad);
  const rotate = left ? angle - 180 : angle;
  const text = `${node.canary ? '⚠ ' : ''}${shortLabel(node.type, node.name, max)}`;
  const fill = node.state === 'ghost' ? '#9aa5b1' : node.canary ? CANARY : '#1f2933';
  return `<text x="${num(lx)}" y="${num(ly)}" dy="0.35em" font-size="11" fill="${fill}" text-anchor="${left ? 'end' : 'start'}" transform="rotate(${num(rotate)} ${num(lx)} ${num(ly)})">${esc(text, max + 4)}</text>`;
}

/** The key to the shapes and colours, as a row of small inline pictures. */
export function legendHtml(extra: string[] = []): string {
  const item = (svg: string, text: string) =>
    `<span><svg width="22" height="16" viewBox="0 0 22 16" aria-hidden="true">${svg}</svg> ${text}</span>`;
  const items = [
    item(shape('command', 11, 8, 5.5, `fill="${TYPE_COLOUR.command}"`), 'command'),
    item(shape('file', 11, 8, 5.5, `fill="${TYPE_COLOUR.file}"`), 'file'),
    item(shape('host', 11, 8, 5, `fill="${TYPE_COLOUR.host}"`), 'host'),
    item(
      `<circle cx="11" cy="8" r="6" fill="none" stroke="${CANARY}" stroke-width="2.5"/>`,
      'canary credential',
    ),
    item('<line x1="1" y1="8" x2="21" y2="8" stroke="#9aa5b1" stroke-width="1"/>', 'few actions'),
    item('<line x1="1" y1="8" x2="21" y2="8" stroke="#9aa5b1" stroke-width="6"/>', 'many actions'),
    item(
      '<line x1="1" y1="8" x2="21" y2="8" stroke="#c2410c" stroke-width="2" stroke-dasharray="5 4"/>',
      'every attempt failed',
    ),
    ...extra,
  ];
  return `<div class="legend">${items.join('')}</div>`;
}

export const LEGEND_DIFFERS = `<span><svg width="22" height="16" viewBox="0 0 22 16" aria-hidden="true"><circle cx="11" cy="8" r="4" fill="${TYPE_COLOUR.file}"/><circle cx="11" cy="8" r="7" fill="none" stroke="${DIFFERS}" stroke-width="2"/></svg> not used by every run</span>`;
export const LEGEND_GHOST = `<span><svg width="22" height="16" viewBox="0 0 22 16" aria-hidden="true"><circle cx="11" cy="8" r="5" fill="none" stroke="${TYPE_COLOUR.file}" stroke-dasharray="2 2"/></svg> used by another run, not this one</span>`;
export const LEGEND_RUNTIME = `<span><svg width="22" height="16" viewBox="0 0 22 16" aria-hidden="true"><circle cx="11" cy="8" r="5" fill="${TYPE_COLOUR.file}" fill-opacity="0.35" stroke="${TYPE_COLOUR.file}" stroke-dasharray="2 1"/></svg> runtime (start-up noise)</span>`;
