import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One import of one module: the file that imports, the file it names, and the line. */
export type ImportEdge = { from: string; to: string; line: number };

/** `import … from '…'`, `export … from '…'`, `import '…'` at a line's start, and `import('…')` anywhere. */
const IMPORT =
  /^[ \t]*(?:(?:import|export)\s[^;()='"`]*?\bfrom|import)\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The relative imports of the .ts files under `root` (tests and declarations aside), paths relative to `root`. */
export function readImportGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const name = entry.name;
    if (!entry.isFile() || !name.endsWith('.ts') || name.endsWith('.test.ts') || name.endsWith('.d.ts'))
      continue;
    const file = path.join(entry.parentPath, name);
    // Block comments may quote an import (a JSDoc example): blank them, keeping line numbers.
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (spec === undefined || !spec.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
      edges.push({
        from: path.relative(root, file),
        to: path.relative(root, target),
        line: text.slice(0, m.index).split('\n').length,
      });
    }
  }
  return edges.sort((a, b) => a.from.localeCompare(b.from) || a.line - b.line);
}

/** `pipeline/run-task.ts` → `pipeline`, `errors.ts` → `errors`. */
export function folderOf(file: string): string {
  const [head = '', ...rest] = file.split('/');
  return rest.length === 0 ? head.replace(/\.ts$/, '') : head;
}

/**
 * Each import that runs up the layers, or names a folder no layer lists, as one sentence naming
 * the importing file and line, the imported file and the two layers.
 */
export function upwardImports(
  edges: readonly ImportEdge[],
  layers: readonly (readonly string[])[],
): { from: string; to: string; message: string }[] {
  const rank = new Map<string, number>();
  layers.forEach((folders, i) => {
    for (const f of folders) rank.set(f, i);
  });
  const problems: { from: string; to: string; message: string }[] = [];
  for (const e of edges) {
    const from = folderOf(e.from);
    const to = folderOf(e.to);
    if (from === to) continue;
    const a = rank.get(from);
    const b = rank.get(to);
    const where = `${e.from}:${e.line} imports ${e.to}`;
    if (a === undefined || b === undefined) {
      const message = `${where}, but src/layers.ts lists no layer for ${a === undefined ? from : to}/`;
      problems.push({ from: e.from, to: e.to, message });
    } else if (b < a) {
      const message = `${where}: ${from}/ (layer ${a + 1}) may not import from ${to}/ (layer ${b + 1}, higher)`;
      problems.push({ from: e.from, to: e.to, message });
    }
  }
  return problems;
}

/** The cycles among `edges`' nodes (each a strongly connected group of two or more), each in a stable order. */
function cycles(edges: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (e.from === e.to) continue;
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    if (!next.has(e.to)) next.set(e.to, []);
  }
  // Tarjan's strongly connected components, iteratively so that a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let counter = 0;
  for (const start of [...next.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; i: number }[] = [{ node: start, i: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1] as { node: string; i: number };
      const targets = next.get(top.node) ?? [];
      if (top.i < targets.length) {
        const w = targets[top.i++] as string;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.node, Math.min(low.get(top.node) ?? 0, index.get(w) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) ?? 0, low.get(top.node) ?? 0));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const group: string[] = [];
      for (;;) {
        const w = stack.pop() as string;
        onStack.delete(w);
        group.push(w);
        if (w === top.node) break;
      }
      if (group.length > 1) groups.push(group.sort());
    }
  }
  return groups.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** Each cycle as one sentence naming, for every member, one import that closes the circle. */
export function describeCycles(edges: readonly ImportEdge[], of: (file: string) => string): string[] {
  const named = edges.map((e) => ({
    from: of(e.from),
    to: of(e.to),
    file: e.from,
    target: e.to,
    line: e.line,
  }));
  return cycles(named).map((group) => {
    const inGroup = new Set(group);
    const links = group.map((node) => {
      const e = named.find(
        (x) => x.from === node && x.to !== node && inGroup.has(x.to),
      ) as (typeof named)[number];
      return `${e.file}:${e.line} imports ${e.target}`;
    });
    return `cycle of ${group.join(', ')}: ${links.join('; ')}`;
  });
}
