import picomatch from 'picomatch';
import { expandPattern, GLOB_OPTIONS } from '../path-glob.js';
import { normalisePath, type PathContext } from './normalise-path.js';
import type { StarEdge, StarGraph } from './types.js';

const WORKSPACE_PREFIX = '$WORKSPACE/';

/** Returns the pattern that matched a normalised file name, or null. */
export type NameMatcher = (name: string) => string | null;

/**
 * Globs over normalised file names, in two spellings:
 * - workspace-relative, exactly like the config's path lists (`tests/hidden/**`, `*.pem` at any
 *   depth, a folder covers what is below it): matched against names under `$WORKSPACE/`;
 * - absolute or placeholder-led (`/etc/**`, `$HOME/.ssh/*`, `/work/bench/x/hidden`): matched
 *   against the whole name, a folder again covering what is below it.
 */
export function fileMatcher(patterns: readonly string[]): NameMatcher {
  const compiled = patterns.map((pattern) => {
    const whole = pattern.startsWith('/') || pattern.startsWith('$');
    const globs = whole ? wholeGlobs(pattern) : expandPattern(pattern);
    const tests = globs.map((glob) => picomatch(glob, GLOB_OPTIONS));
    return { pattern, whole, test: (name: string) => tests.some((t) => t(name)) };
  });
  return (name) => {
    const relative = name.startsWith(WORKSPACE_PREFIX) ? name.slice(WORKSPACE_PREFIX.length) : null;
    for (const c of compiled) {
      if (c.whole ? c.test(name) : relative !== null && c.test(relative)) return c.pattern;
    }
    return null;
  };
}

function wholeGlobs(pattern: string): string[] {
  const glob = pattern.length > 1 ? pattern.replace(/\/+$/, '') : pattern;
  return glob.endsWith('/**') ? [glob] : [glob, `${glob}/**`];
}

/** Host allow-list entries: an exact name, or `*.example.com` for the domain and every subdomain. */
export function hostMatcher(patterns: readonly string[]): NameMatcher {
  const list = patterns.map((p) => ({ pattern: p, name: p.trim().toLowerCase().replace(/\.$/, '') }));
  return (host) => {
    for (const { pattern, name } of list) {
      if (name === host) return pattern;
      if (name.startsWith('*.')) {
        const domain = name.slice(2);
        if (host === domain || host.endsWith(`.${domain}`)) return pattern;
      }
    }
    return null;
  };
}

/**
 * A skill or grader file as a graph name: workspace-relative paths become `$WORKSPACE/…`,
 * placeholder names stay, and absolute paths are normalised with the run's context when given.
 */
export function resourceFileName(path: string, context?: PathContext): string {
  if (path.startsWith('$')) return path;
  if (path.startsWith('/')) return context ? normalisePath(path, context) : path;
  return WORKSPACE_PREFIX + path.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

/** Edges per node id, for questions like "was this file read successfully?". */
export function edgesByNode(graph: StarGraph): Map<string, StarEdge[]> {
  const map = new Map<string, StarEdge[]>();
  for (const edge of graph.edges) {
    const list = map.get(edge.to) ?? [];
    list.push(edge);
    map.set(edge.to, list);
  }
  return map;
}

/** Successful actions of the given kinds on one node. */
export function succeeded(
  edges: readonly StarEdge[] | undefined,
  actions: readonly StarEdge['action'][],
): number {
  let n = 0;
  for (const edge of edges ?? []) if (actions.includes(edge.action)) n += edge.count - edge.failed;
  return n;
}
