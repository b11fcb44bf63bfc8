import type { Template } from '../types.js';
import { fails, quiet, word, write } from './common.js';

const ALLOWED = ['src/**', 'docs/**'];
const OUTSIDE = 'the path is outside allowed_paths (src/**, docs/**)';

/** allowed_paths `src/**` and `docs/**` at and around their edges. */
export const SCOPE_TEMPLATES: Template[] = [
  {
    name: 'inside',
    make: (rng) => {
      const p = `src/${word(rng)}/${word(rng)}.ts`;
      return {
        description: `writes ${p}`,
        policy: { allowed_paths: ALLOWED },
        ops: [write(p, 'export {};\n')],
        commands: [],
        expected: quiet('inside src/**'),
      };
    },
  },
  {
    name: 'case-folder',
    make: (rng) => {
      const p = `${rng.pick(['Src', 'SRC', 'Docs'])}/${word(rng)}.ts`;
      return {
        description: `writes ${p}: an allowed folder's name in another case`,
        policy: { allowed_paths: ALLOWED },
        ops: [write(p, 'export {};\n')],
        commands: [],
        expected: fails(['scope'], 'FAIL', `${OUTSIDE}: another folder on a case-sensitive filesystem`),
      };
    },
  },
  {
    name: 'near-miss-glob',
    make: (rng) => {
      const p = rng.pick(['src2/x.ts', 'srcx.ts', 'source/x.ts', 'src-old/x.ts', 'lib/src/x.ts', 'docs.md']);
      return {
        description: `writes ${p}, a name that starts like an allowed folder`,
        policy: { allowed_paths: ALLOWED },
        ops: [write(p, 'export {};\n')],
        commands: [],
        expected: fails(['scope'], 'FAIL', OUTSIDE),
      };
    },
  },
  {
    name: 'unicode-lookalike',
    make: (rng) => {
      const folder = rng.pick(['\uff53rc', 'src\u0301', 'sr\u0441']);
      const p = `${folder}/${word(rng)}.ts`;
      return {
        description: `writes ${JSON.stringify(p)}: a look-alike of src/`,
        policy: { allowed_paths: ALLOWED },
        ops: [write(p, 'export {};\n')],
        commands: [],
        expected: fails(['scope'], 'FAIL', `${OUTSIDE}: the bytes are not src/`),
      };
    },
  },
  {
    name: 'rename-out',
    make: (rng) => {
      const to = `${rng.pick(['lib', 'vendor', 'Src'])}/util.ts`;
      return {
        description: `renames src/util.ts to ${to}`,
        policy: { allowed_paths: ALLOWED },
        ops: [{ op: 'rename', from: 'src/util.ts', to }],
        commands: [],
        expected: fails(['scope'], 'FAIL', `${OUTSIDE}: the new side of the rename`),
      };
    },
  },
  {
    name: 'rename-within',
    make: (rng) => {
      const to = `src/${word(rng)}/util.ts`;
      return {
        description: `renames src/util.ts to ${to}`,
        policy: { allowed_paths: ALLOWED },
        ops: [{ op: 'rename', from: 'src/util.ts', to }],
        commands: [],
        expected: quiet('both sides of the rename are inside src/**'),
      };
    },
  },
  {
    name: 'odd-name-inside',
    make: (rng) => {
      const p = rng.pick([
        'src/.hidden.ts',
        'src/a\nb.ts',
        'src/ spaced .ts',
        'src/..dots.ts',
        'src/-dash.ts',
        'src/\u00e9t\u00e9.ts',
      ]);
      return {
        description: `writes ${JSON.stringify(p)}: an unusual name inside src/`,
        policy: { allowed_paths: ALLOWED },
        ops: [write(p, 'export {};\n')],
        commands: [],
        expected: quiet('inside src/** whatever the characters of the name'),
      };
    },
  },
  {
    name: 'delete-outside',
    make: () => ({
      description: 'deletes README.md, outside the allowed folders',
      policy: { allowed_paths: ALLOWED },
      ops: [{ op: 'delete', path: 'README.md' }],
      commands: [],
      expected: fails(['scope'], 'FAIL', `${OUTSIDE}: a deletion is a change too`),
    }),
  },
];
