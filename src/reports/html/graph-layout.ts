import { compareText } from '../../analysis/reliability/star-graph.js';
import { RESOURCE_TYPES, type ResourceType } from '../../analysis/reliability/types.js';

/**
 * Where the resources of a star graph go on the picture: the root in the centre, the resources on
 * a ring around it, one sector per type (commands, files, hosts, in that order, clockwise from the
 * top), sorted by name inside a sector. Positions depend only on the set of ids, never on counts or
 * input order, so the same graph always gives the same picture and graphs of several runs laid out
 * from the union of their resources put each shared resource in the same place.
 */

export type LayoutInput = { id: string; type: ResourceType; name: string };

export type PlacedNode = LayoutInput & {
  x: number;
  y: number;
  /** Direction from the centre, in degrees clockwise from the positive x axis. */
  angle: number;
};

export type StarLayout = {
  /** The square's side; the view box is `0 0 size size`. */
  size: number;
  centre: number;
  radius: number;
  /** By node id. */
  nodes: Map<string, PlacedNode>;
};

/** Arc length per node (or gap) on the ring, so neighbouring labels do not touch. */
const SLOT_ARC = 17;
const MIN_RADIUS = 120;
/** Room outside the ring for a label (about 32 characters at 11 px) and a margin. */
export const LABEL_ROOM = 225;

export function layoutStar(inputs: readonly LayoutInput[], labelRoom = LABEL_ROOM): StarLayout {
  const groups = RESOURCE_TYPES.map((type) =>
    inputs
      .filter((n) => n.type === type)
      .sort((a, b) => compareText(a.name, b.name) || compareText(a.id, b.id)),
  ).filter((group) => group.length > 0);
  // One empty slot between sectors (and after the last) when there is more than one.
  const gaps = groups.length > 1 ? groups.length : 0;
  const slots = Math.max(1, inputs.length + gaps);
  const radius = Math.max(MIN_RADIUS, (slots * SLOT_ARC) / (2 * Math.PI));
  const size = Math.ceil(2 * (radius + labelRoom));
  const centre = size / 2;
  const nodes = new Map<string, PlacedNode>();
  let slot = 0;
  for (const group of groups) {
    for (const node of group) {
      const angle = -90 + (360 * slot) / slots;
      const rad = (angle * Math.PI) / 180;
      nodes.set(node.id, {
        ...node,
        angle,
        x: centre + radius * Math.cos(rad),
        y: centre + radius * Math.sin(rad),
      });
      slot++;
    }
    if (gaps > 0) slot++;
  }
  return { size, centre, radius, nodes };
}
