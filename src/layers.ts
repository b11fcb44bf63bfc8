/**
 * The layers of src/, top first: a module may import from its own folder, from a folder of its own
 * layer, or from a lower layer, never from a higher one (docs/architecture.md, "Layers").
 * `src/import-graph.test.ts` checks every import of every non-test module against this list.
 * A file at the root of src/ (`errors.ts`) counts as a folder named by its stem (`errors`).
 */
export const LAYERS: readonly (readonly string[])[] = [
  // The project's self-measurement, run through `npm run bench`: may call any command.
  ['bench'],
  ['cli'],
  // What one command (or a family of them) does, over the run and batch layers.
  [
    'view',
    'init',
    'schemas',
    'queue',
    'stress',
    'overhead',
    'diagnostics',
    'fuzz',
    'audit',
    'pack',
    'registry',
    'ci',
  ],
  ['batch'],
  ['pipeline'],
  ['provenance', 'policy'],
  ['reports'],
  ['agents', 'sandbox'],
  ['observe', 'workspace', 'history', 'exec'],
  ['analysis'],
  ['config'],
  ['evidence'],
  ['errors', 'package-root', 'version', 'io-types'],
];
