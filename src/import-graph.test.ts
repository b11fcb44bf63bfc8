import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { describeCycles, folderOf, readImportGraph, upwardImports } from './import-graph.js';
import { LAYERS } from './layers.js';

const SRC = path.dirname(fileURLToPath(import.meta.url));

describe('the import graph of src/', () => {
  const edges = readImportGraph(SRC);

  test('reads the imports of every module', () => {
    // Sanity: the CLI's entry imports its registry, a type-only import and a lazy import are read.
    expect(edges.some((e) => e.from === 'cli/main.ts' && e.to === 'cli/registry/index.ts')).toBe(true);
    expect(edges.some((e) => e.from === 'cli/registry/types.ts' && e.to === 'io-types.ts')).toBe(true);
    expect(edges.some((e) => e.from === 'cli/registry/start.ts' && e.to === 'cli/commands/run.ts')).toBe(
      true,
    );
  });

  test('every import points down the layers of src/layers.ts', () => {
    expect(upwardImports(edges, LAYERS).map((p) => p.message)).toEqual([]);
  });

  test('no two modules, and no two folders, import each other in a circle', () => {
    expect([...describeCycles(edges, (f) => f), ...describeCycles(edges, folderOf)]).toEqual([]);
  });

  test('every folder of src/ has a layer, and one only', () => {
    const folders = [...new Set(edges.flatMap((e) => [folderOf(e.from), folderOf(e.to)]))].sort();
    const listed = LAYERS.flat();
    expect(folders.filter((f) => !listed.includes(f))).toEqual([]);
    expect(listed.filter((f, i) => listed.indexOf(f) !== i)).toEqual([]);
  });
});

describe('the import checker', () => {
  let root = '';
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const tree = (files: Record<string, string>) => {
    root = mkdtempSync(path.join(tmpdir(), 'import-graph-'));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      writeFileSync(path.join(root, name), text);
    }
    return readImportGraph(root);
  };

  test('names the file, line and layers of an import that runs up', () => {
    const edges = tree({
      'low/a.ts': "import { z } from 'zod';\n\nimport type {\n  B,\n} from '../high/b.js';\n",
      'high/b.ts': "export { a } from '../low/a.js';\nconst lazy = () => import('../low/a.js');\n",
      'high/b.test.ts': "import '../low/a.js';\n",
      'high/doc.ts': "/**\n * import { x } from '../nowhere.js';\n */\nexport function f(s = 'from') {}\n",
    });
    expect(edges).toEqual([
      { from: 'high/b.ts', to: 'low/a.ts', line: 1 },
      { from: 'high/b.ts', to: 'low/a.ts', line: 2 },
      { from: 'low/a.ts', to: 'high/b.ts', line: 3 },
    ]);
    expect(upwardImports(edges, [['high'], ['low']]).map((p) => p.message)).toEqual([
      'low/a.ts:3 imports high/b.ts: low/ (layer 2) may not import from high/ (layer 1, higher)',
    ]);
    expect(upwardImports(edges, [['high']]).map((p) => p.message)).toEqual([
      'high/b.ts:1 imports low/a.ts, but src/layers.ts lists no layer for low/',
      'high/b.ts:2 imports low/a.ts, but src/layers.ts lists no layer for low/',
      'low/a.ts:3 imports high/b.ts, but src/layers.ts lists no layer for low/',
    ]);
  });

  test('names every member of a circle and the import that closes it', () => {
    const edges = tree({
      'x/a.ts': "import { b } from './b.js';\n",
      'x/b.ts': "import { c } from './c.js';\n",
      'x/c.ts': "\nimport { a } from './a.js';\nimport { d } from './d.js';\n",
      'x/d.ts': 'export const d = 1;\n',
    });
    expect(describeCycles(edges, (f) => f)).toEqual([
      'cycle of x/a.ts, x/b.ts, x/c.ts: x/a.ts:1 imports x/b.ts; x/b.ts:1 imports x/c.ts; x/c.ts:2 imports x/a.ts',
    ]);
    expect(describeCycles(edges, folderOf)).toEqual([]);
  });
});
